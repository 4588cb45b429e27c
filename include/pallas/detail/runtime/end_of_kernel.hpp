// SPDX-License-Identifier: Apache-2.0
#pragma once
// What must hold when a core's body ends (every copy waited) and when a kernel ends (every
// semaphore zero), checked mode's leak reports (pallas::leak_error).

#include <cstdint>
#include <mutex>
#include <string>

#include <pallas/config.hpp>
#include <pallas/detail/runtime/core.hpp>
#include <pallas/detail/runtime/deadlock.hpp>
#include <pallas/detail/runtime/dma_engine_ops.hpp>
#include <pallas/detail/runtime/launch.hpp>
#include <pallas/error.hpp>

namespace pallas::detail {

/// Checked mode: every semaphore of every core must be zero when the kernel ends.
[[gnu::cold]] inline void check_semaphores_zero(launch_state const& launch) {
  std::string found;
  for (int c = 0; c < launch.num_cores; ++c) {
    core_state const& core = *launch.cores[c];
    std::lock_guard lock(core.checked.mutex);
    for (auto const& blk : core.checked.semaphores) {
      for (std::int64_t k = 0; k < blk.count; ++k) {
        void const* cell = core.semaphores.base() + blk.offset + k * blk.element_bytes;
        std::int32_t const v = read_cell(cell);
        if (v != 0)
          found += (found.empty() ? "" : "; ") + core.checked.semaphore_name_locked(cell) + " on " + core_name(core) + " holds " + std::to_string(v);
      }
    }
  }
  if (!found.empty())
    fail<leak_error>("pallas::kernel: every semaphore must be zero when the kernel ends, but ", found);
  for (int c = 0; c < launch.num_cores; ++c) {
    core_state& core = *launch.cores[c];
    std::lock_guard lock(core.early_mutex);
    for (early_signal const& s : core.early_signals)
      found += (found.empty() ? "" : "; ") + core_name(*launch.cores[s.from]) + " signaled " + s.name + " on " +
               core_name(core) + " (+" + std::to_string(s.inc) +
               "), which that core never allocated (a run_scoped it never reached?)";
  }
  if (!found.empty()) fail<leak_error>("pallas::kernel: every signal must reach its semaphore, but ", found);
}

/// The end of a core's body (dma_engine::finish): copies never waited are leaks in checked
/// mode; copies still queued move now.
inline void finish_core(core_state& core) { core.dma.finish(core); }

}  // namespace pallas::detail
