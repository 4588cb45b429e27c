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

#include <pallas/config.hpp>
#include <pallas/detail/runtime/dma_order.hpp>

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
PALLAS_DECL tpu::dma_schedule schedule_from(char const* order, char const* seed);

}  // namespace pallas::detail

namespace pallas::tpu {

/// The schedule the next launch uses.
PALLAS_DECL dma_schedule get_dma_schedule();

/// Sets the schedule of the launches that start from now on.
PALLAS_DECL void set_dma_schedule(dma_schedule s);

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
PALLAS_DECL dma_order_policy launch_dma_policy();

}  // namespace pallas::detail

#if PALLAS_DEFINE_RUNTIME
#  include <pallas/tpu/dma_schedule.ipp>
#endif
