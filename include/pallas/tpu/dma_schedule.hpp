// SPDX-License-Identifier: Apache-2.0
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
//                                       semaphore, unrelated copies complete early, and the
//                                       cores run one at a time, taking turns at semaphore
//                                       operations and copy starts and waits in the order
//                                       the seed says (a deterministic interleaving)
//
//   pltpu::set_dma_schedule({pltpu::dma_execution_mode::random, /*seed=*/7});
//   { pltpu::scoped_dma_schedule s({pltpu::dma_execution_mode::eager}); kernel(); }
//
// The environment sets the initial schedule: PALLAS_DMA_ORDER=on_wait|eager|random and
// PALLAS_DMA_SEED=<n> (a seed alone selects random). Each launch re-seeds every core from
// (seed, core index) and its interleaving from the seed, so the same seed gives the same
// interleaving, the same completion order and the same checked-mode report, every time.

#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <string_view>

#include <pallas/detail/runtime/dma_order.hpp>
#include <pallas/detail/runtime/fork_guard.hpp>
#include <pallas/error.hpp>

namespace pallas::tpu {

/// `InterpretParams.dma_execution_mode`, plus a seeded random mode.
enum class dma_execution_mode { on_wait, eager, random };

/// The process-wide DMA schedule for the next launches.
struct dma_schedule {
  dma_execution_mode mode = dma_execution_mode::on_wait;  ///< when started copies move their bytes
  std::uint64_t seed = 0;    ///< random mode: the seed of every core's choices
  bool yield_cores = true;   ///< random mode: also yield the core thread at random

  /// All fields equal.
  friend bool operator==(dma_schedule const&, dma_schedule const&) = default;
};

}  // namespace pallas::tpu

namespace pallas::detail {

/// The schedule that PALLAS_DMA_ORDER and PALLAS_DMA_SEED describe (null: unset).
inline tpu::dma_schedule schedule_from(char const* order, char const* seed) {
  tpu::dma_schedule s;
  if (seed && *seed) {
    char* end = nullptr;
    s.seed = std::strtoull(seed, &end, 0);
    if (!end || *end != '\0')
      fail("pallas::dma_schedule: PALLAS_DMA_SEED='", seed, "' is not an unsigned integer");
    s.mode = tpu::dma_execution_mode::random;
  }
  if (order && *order) {
    std::string_view const o(order);
    if (o == "on_wait")
      s.mode = tpu::dma_execution_mode::on_wait;
    else if (o == "eager")
      s.mode = tpu::dma_execution_mode::eager;
    else if (o == "random")
      s.mode = tpu::dma_execution_mode::random;
    else
      fail("pallas::dma_schedule: PALLAS_DMA_ORDER='", o,
                           "' is not one of on_wait, eager, random");
  }
  return s;
}

struct schedule_holder {
  std::mutex mutex;
  tpu::dma_schedule value = schedule_from(std::getenv("PALLAS_DMA_ORDER"), std::getenv("PALLAS_DMA_SEED"));
};

inline std::mutex& schedule_mutex();

inline schedule_holder& schedule_storage() {
  static schedule_holder* const holder = [] {
    auto* h = new schedule_holder;  // never destroyed: launches may run at exit
    hold_across_fork<&schedule_mutex>();
    return h;
  }();
  return *holder;
}

inline std::mutex& schedule_mutex() { return schedule_storage().mutex; }

}  // namespace pallas::detail

namespace pallas::tpu {

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
  /// Uses `s` until the end of the scope.
  explicit scoped_dma_schedule(dma_schedule s) : previous_(get_dma_schedule()) { set_dma_schedule(s); }
  ~scoped_dma_schedule() { set_dma_schedule(previous_); }
  scoped_dma_schedule(scoped_dma_schedule const&) = delete;
  scoped_dma_schedule& operator=(scoped_dma_schedule const&) = delete;

 private:
  dma_schedule previous_;
};

}  // namespace pallas::tpu

namespace pallas::detail {

/// The DMA order of a launch that starts now.
inline dma_order_policy launch_dma_policy() {
  tpu::dma_schedule const s = tpu::get_dma_schedule();
  dma_order const order = s.mode == tpu::dma_execution_mode::eager    ? dma_order::eager
                          : s.mode == tpu::dma_execution_mode::random ? dma_order::random
                                                                      : dma_order::on_wait;
  return {order, s.seed, s.yield_cores};
}

}  // namespace pallas::detail
