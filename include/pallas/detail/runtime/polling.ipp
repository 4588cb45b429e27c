// SPDX-License-Identifier: Apache-2.0
#pragma once
// A core polling a semaphore, compiled once per program under separate compilation
// (config.hpp) and inline in every translation unit otherwise.

#include <pallas/detail/runtime/polling.hpp>

namespace pallas::detail {

PALLAS_DECL void note_semaphore_read(core_state& core, std::atomic<std::int32_t> const& cell, std::int32_t value,
                                     place where) {
  semaphore_poll& p = core.poll;
  if (p.cell != &cell || p.value != value) {
    end_polling(core);
    p.cell = &cell;
    p.value = value;
    p.stalled_since = {};
    return;
  }
  if (++p.reads < polls_before_waiting) return;
  launch_state& launch = *core.launch;
  if (launch.interleave.active()) {  // the cores take turns: a core that can run gets the token
    p.reads = 0;
    enter_wait(core, p.watch, &cell, value, polling_who, where);
    bool const someone_ran = interleave_block(core);
    leave_wait(core, p.watch);
    if (!someone_ran) report_deadlock(launch);
    return;
  }
  enter_wait(core, p.watch, &cell, value, polling_who, where);
  poll_wait(core, p.watch, [&] {  // over MPI another rank may still signal it: never proven stuck
    return cell.load(std::memory_order_acquire) == value && !chips_elsewhere(launch);
  });
  if (launch.chips) stalled_remote(core, p.stalled_since);
}

}  // namespace pallas::detail
