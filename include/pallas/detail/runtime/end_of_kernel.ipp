// SPDX-License-Identifier: Apache-2.0
#pragma once
// The end-of-kernel leak check, compiled once per program under separate compilation
// (config.hpp) and inline in every translation unit otherwise.

#include <pallas/detail/runtime/end_of_kernel.hpp>

namespace pallas::detail {

PALLAS_DECL void check_semaphores_zero(launch_state const& launch) {
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

}  // namespace pallas::detail
