// SPDX-License-Identifier: Apache-2.0
#pragma once
// The random order's token passing on a core, compiled once per program under separate
// compilation (config.hpp) and inline in every translation unit otherwise.

#include <pallas/detail/runtime/random_order.hpp>

namespace pallas::detail {

PALLAS_DECL void interleave_point(core_state& core) {
  interleaving& il = core.launch->interleave;
  if (!il.active()) return;
  ++il.progress;
  int const next = il.pick();
  if (next < 0 || next == core.index) return;
  il.pass_to(next);
  il.wait_for(core.index);
  core.launch->check_aborted();
}

PALLAS_DECL bool interleave_block(core_state& core) {
  interleaving& il = core.launch->interleave;
  if (!il.active()) return true;  // given up: the caller waits as in the other orders
  auto const me = static_cast<std::size_t>(core.index);
  il.slots[me].now = interleaving::state::blocked;
  il.slots[me].blocked_at = il.progress;
  int const next = il.pick();
  if (next < 0) return false;
  il.pass_to(next);
  il.wait_for(core.index);
  // Still taking turns: this core holds the token. Given up: it may not, and the slots
  // belong to whichever core still does.
  if (il.active()) il.slots[me].now = interleaving::state::runnable;
  core.launch->check_aborted();
  return true;
}

PALLAS_DECL void interleave_end(core_state& core) {
  interleaving& il = core.launch->interleave;
  if (!il.active()) return;
  il.slots[static_cast<std::size_t>(core.index)].now = interleaving::state::finished;
  ++il.progress;
  int next = il.pick();
  if (next < 0)  // every other core is blocked for good: one of them reports the deadlock
    for (std::size_t c = 0; c < il.slots.size() && next < 0; ++c)
      if (il.slots[c].now == interleaving::state::blocked) next = static_cast<int>(c);
  if (next >= 0) il.pass_to(next);
}

PALLAS_DECL void start_barrier(core_state& core) {
  launch_state& launch = *core.launch;
  if (!launch.interleave.active()) {
    launch.start_barrier();
    return;
  }
  launch.arrived.fetch_add(1, std::memory_order_acq_rel);
  ++launch.interleave.progress;
  while (launch.arrived.load(std::memory_order_acquire) < launch.num_cores) {
    if (!launch.interleave.active()) return launch.start_barrier_wait();
    if (!interleave_block(core)) break;  // the others failed or finished
  }
}

}  // namespace pallas::detail
