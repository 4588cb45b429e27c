// SPDX-License-Identifier: Apache-2.0
#pragma once
// When a launch's started copies move their bytes (the policy behind
// pltpu::set_dma_schedule): at the wait that needs them, at start, or in a seeded random
// order that also lets cores interleave differently.

#include <cstdint>

namespace pallas::detail {

enum class dma_order { on_wait, eager, random };

/// Who moves the bytes of a started copy (dma_engine.hpp): the issuing core at its wait,
/// the device's DMA thread with the core's help, or the measured rule (the thread when the
/// launch leaves a CPU free for it).
enum class dma_executor_choice { automatic, on_core, thread };

struct dma_order_policy {
  dma_order order = dma_order::on_wait;
  std::uint64_t seed = 0;   ///< random: the seed of every core's choices
  bool yield_cores = true;  ///< random: also yield core threads at random
};

/// What uninitialized memory holds (tpu/interpret_params.hpp).
enum class uninitialized_policy { poison, nan, zero };

/// What checked mode's race detector does on a race (tpu/interpret_params.hpp).
enum class race_policy { off, report, raise };

/// The interpreter's conventions a launch follows (tpu/interpret_params.hpp).
struct launch_conventions {
  uninitialized_policy uninitialized = uninitialized_policy::poison;
  bool fetch_at_step = false;  ///< inputs read at their step, after every earlier write-back
  race_policy races = race_policy::report;  ///< checked mode's race detector
};

}  // namespace pallas::detail
