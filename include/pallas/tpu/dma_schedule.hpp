#pragma once
// When started copies move their bytes, and how cores interleave: a seeded, reproducible
// exploration of the orders hardware may produce, so that tests expose races the default
// order hides.
//
//   pltpu::dma_execution_mode::on_wait  (default) a copy moves at the first wait that needs
//                                       its semaphore, oldest first (Pallas' interpreter
//                                       default is also "on_wait")
//   pltpu::dma_execution_mode::eager    every copy moves at start()
//   pltpu::dma_execution_mode::random   seeded: a copy moves at start() or later, a wait
//                                       picks at random among the copies that signal its
//                                       semaphore, unrelated copies complete early, and
//                                       cores yield at random at semaphore operations and
//                                       copy starts
//
//   pltpu::set_dma_schedule({pltpu::dma_execution_mode::random, /*seed=*/7});
//   { pltpu::scoped_dma_schedule s({pltpu::dma_execution_mode::eager}); kernel(); }
//
// The environment sets the initial schedule: PALLAS_DMA_ORDER=on_wait|eager|random and
// PALLAS_DMA_SEED=<n> (a seed alone selects random). Each launch re-seeds every core from
// (seed, core index), so a launch's DMA choices depend only on the seed and on what each
// core does: the same seed gives the same completion order.

#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <string_view>

#include <pallas/error.hpp>

namespace pallas::tpu {

/// `InterpretParams.dma_execution_mode`, plus a seeded random mode.
enum class dma_execution_mode { on_wait, eager, random };

/// The process-wide DMA schedule for the next launches.
struct dma_schedule {
  dma_execution_mode mode = dma_execution_mode::on_wait;
  std::uint64_t seed = 0;    ///< random mode: the seed of every core's choices
  bool yield_cores = true;   ///< random mode: also yield the core thread at random

  friend bool operator==(dma_schedule const&, dma_schedule const&) = default;
};

namespace detail {

/// The schedule that PALLAS_DMA_ORDER and PALLAS_DMA_SEED describe (null: unset).
inline dma_schedule schedule_from(char const* order, char const* seed) {
  dma_schedule s;
  if (seed && *seed) {
    char* end = nullptr;
    s.seed = std::strtoull(seed, &end, 0);
    if (!end || *end != '\0')
      pallas::detail::fail("pallas::dma_schedule: PALLAS_DMA_SEED='", seed, "' is not an unsigned integer");
    s.mode = dma_execution_mode::random;
  }
  if (order && *order) {
    std::string_view const o(order);
    if (o == "on_wait")
      s.mode = dma_execution_mode::on_wait;
    else if (o == "eager")
      s.mode = dma_execution_mode::eager;
    else if (o == "random")
      s.mode = dma_execution_mode::random;
    else
      pallas::detail::fail("pallas::dma_schedule: PALLAS_DMA_ORDER='", o,
                           "' is not one of on_wait, eager, random");
  }
  return s;
}

struct schedule_holder {
  std::mutex mutex;
  dma_schedule value = schedule_from(std::getenv("PALLAS_DMA_ORDER"), std::getenv("PALLAS_DMA_SEED"));
};

inline schedule_holder& schedule_storage() {
  static schedule_holder holder;
  return holder;
}

}  // namespace detail

/// The schedule the next launch uses.
inline dma_schedule get_dma_schedule() {
  auto& h = detail::schedule_storage();
  std::lock_guard lock(h.mutex);
  return h.value;
}

/// Sets the schedule of the launches that start from now on.
inline void set_dma_schedule(dma_schedule s) {
  auto& h = detail::schedule_storage();
  std::lock_guard lock(h.mutex);
  h.value = s;
}

/// Sets a schedule for its lifetime, then restores the previous one.
class scoped_dma_schedule {
 public:
  explicit scoped_dma_schedule(dma_schedule s) : previous_(get_dma_schedule()) { set_dma_schedule(s); }
  ~scoped_dma_schedule() { set_dma_schedule(previous_); }
  scoped_dma_schedule(scoped_dma_schedule const&) = delete;
  scoped_dma_schedule& operator=(scoped_dma_schedule const&) = delete;

 private:
  dma_schedule previous_;
};

}  // namespace pallas::tpu
