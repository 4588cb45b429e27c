// SPDX-License-Identifier: Apache-2.0
#pragma once
// launch_state's failure and start barrier, and core names, compiled once per program under
// separate compilation (config.hpp) and inline in every translation unit otherwise.

#include <pallas/detail/runtime/launch.hpp>

namespace pallas::detail {

PALLAS_DECL void launch_state::fail_with(std::exception_ptr e) {
  {
    std::lock_guard lock(error_mutex);
    if (!first_error) first_error = std::move(e);
  }
  aborted.store(true, std::memory_order_release);
}

PALLAS_DECL void launch_state::start_barrier_wait() {
  // A failing core never arrives, so poll the abort flag instead of parking.
  for (int k = 0; arrived.load(std::memory_order_acquire) < num_cores; ++k) {
    check_aborted();
    if (k < 4096 && spinning_pays(num_cores))
      cpu_relax();
    else if (k < 8192)
      std::this_thread::yield();
    else
      std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
}

PALLAS_DECL std::string core_name(core_state const& core) {
  if (!core.launch || !core.launch->chips) return "core " + std::to_string(core.index);
  return "chip " + std::to_string(chip_index(core)) + " core " + std::to_string(local_core_index(core));
}

}  // namespace pallas::detail
