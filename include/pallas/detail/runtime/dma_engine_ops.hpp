// SPDX-License-Identifier: Apache-2.0
#pragma once
// The DMA engine's operations (dma_engine.hpp has its state and executors;
// dma_shared_copies.hpp the copies it shares with the DMA thread):
//
//   core.dma.start(core, task, where)                   start a copy (applies the order)
//   core.dma.wait(core, cell, value, who, where)        block until `cell` >= value, then
//                                                       subtract it; moves the core's own
//                                                       copies that signal `cell` first
//   core.dma.finish(core)                               the end of a body: leaks, drain
//   check_copy_conflicts(core, src, dst, who)           checked mode: a copy against copies
//                                                       in flight

#include <atomic>
#include <cstdint>
#include <string>

#include <pallas/config.hpp>
#include <pallas/detail/checked/checked_access.hpp>
#include <pallas/detail/runtime/chip_set.hpp>
#include <pallas/detail/runtime/core.hpp>
#include <pallas/detail/runtime/dma_engine.hpp>
#include <pallas/detail/runtime/dma_order.hpp>
#include <pallas/detail/runtime/dma_task.hpp>
#include <pallas/detail/runtime/launch.hpp>
#include <pallas/error.hpp>

namespace pallas::detail {

// ---- The engine's entry points as the rest of the library calls them.

/// Blocks until `cell` holds at least `value`, then subtracts it (dma_engine::wait).
inline void wait_on_semaphore(core_state& core, std::atomic<std::int32_t>& cell, std::int32_t value, char const* who,
                              place where = {}) {
  core.dma.wait(core, cell, value, who, where);
}

/// Whether the next copy started on this core moves at once (checked mode does not poison
/// the destination of such a copy). Consumes no random number.
inline bool schedule_is_eager(core_state& core) noexcept { return core.dma.order().order == dma_order::eager; }

/// Checked mode: a copy (or sync_copy) reading `src` and writing `dst` must not touch the
/// destination, nor write the source, of a copy in flight: on this core, and for HBM, on
/// every core. `who()` names the new copy in the message (only called on a race).
template <class Who>
void check_copy_conflicts(core_state& core, region const& src, region const& dst, Who&& who) {
  std::string hit = core.checked.conflict(&src, &dst);
  if (hit.empty()) {
    bool const src_hbm = !src.empty() && !core.checked.memory.is_local(src.lo);
    bool const dst_hbm = !dst.empty() && !core.checked.memory.is_local(dst.lo);
    if (src_hbm || dst_hbm) {
      launch_state const& launch = *core.launch;
      for (int c = 0; c < launch.num_cores && hit.empty(); ++c) {
        core_state const& other = *launch.cores[c];
        if (&other == &core || other.checked.in_flight.load(std::memory_order_relaxed) == 0) continue;
        hit = other.checked.conflict(src_hbm ? &src : nullptr, dst_hbm ? &dst : nullptr);
      }
    }
  }
  if (!hit.empty()) fail<race_error>("pallas::race: ", who(), ' ', hit, ", before that copy's wait");
}

/// "the copy's" source and destination regions overlap (identical views excepted).
PALLAS_DECL bool regions_overlap_unequal(region const& a, region const& b) noexcept;

}  // namespace pallas::detail

#if PALLAS_DEFINE_RUNTIME
#  include <pallas/detail/runtime/dma_engine_ops.ipp>
#endif
