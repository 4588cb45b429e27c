// SPDX-License-Identifier: Apache-2.0
#pragma once
// The random DMA order's choices: each core draws its DMA choices from its own seeded
// generator, and the cores interleave as the launch's seeded generator says
// (interleaving.hpp), so that a launch's run depends only on the seed.

#include <chrono>
#include <cstdint>
#include <thread>

#include <pallas/detail/runtime/core.hpp>
#include <pallas/detail/runtime/dma_order.hpp>
#include <pallas/detail/runtime/interleaving.hpp>
#include <pallas/detail/runtime/launch.hpp>

namespace pallas::detail {

/// The next of the core's seeded random numbers (splitmix64).
inline std::uint64_t next_random(core_state& core) noexcept { return core.dma.next_random(); }

/// The start of a core's job: it runs once it holds the token.
inline void interleave_begin(core_state& core) {
  interleaving& il = core.launch->interleave;
  if (il.active()) il.wait_for(core.index);
}

/// A synchronization point: the token may go to another core.
inline void interleave_point(core_state& core) {
  interleaving& il = core.launch->interleave;
  if (!il.active()) return;
  ++il.progress;
  int const next = il.pick();
  if (next < 0 || next == core.index) return;
  il.pass_to(next);
  il.wait_for(core.index);
  core.launch->check_aborted();
}

/// A wait that cannot be satisfied now: the token goes to a core that can run, and comes
/// back when something may have changed. Returns false when no core can run any more (a
/// deadlock: the caller reports it).
inline bool interleave_block(core_state& core) {
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

/// The end of a core's job (also when it throws): the token goes on.
inline void interleave_end(core_state& core) {
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

/// Every core waits here once, after allocating its scratch and before its body runs, so
/// that no core signals a semaphore another core has not allocated yet.
inline void start_barrier(core_state& core) {
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

/// In the random order, a synchronization point (semaphore operations, copy starts and
/// waits): another core may run from here, as the seed says (interleaving.hpp).
inline void perturb(core_state& core) { interleave_point(core); }

}  // namespace pallas::detail
