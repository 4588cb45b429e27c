// SPDX-License-Identifier: Apache-2.0
#pragma once
// The random DMA order's choices: each core draws its DMA choices from its own seeded
// generator, and the cores interleave as the launch's seeded generator says
// (interleaving.hpp), so that a launch's run depends only on the seed.

#include <cstdint>

#include <pallas/config.hpp>
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
PALLAS_DECL void interleave_point(core_state& core);

/// A wait that cannot be satisfied now: the token goes to a core that can run, and comes
/// back when something may have changed. Returns false when no core can run any more (a
/// deadlock: the caller reports it).
PALLAS_DECL bool interleave_block(core_state& core);

/// The end of a core's job (also when it throws): the token goes on.
PALLAS_DECL void interleave_end(core_state& core);

/// Every core waits here once, after allocating its scratch and before its body runs, so
/// that no core signals a semaphore another core has not allocated yet.
PALLAS_DECL void start_barrier(core_state& core);

/// In the random order, a synchronization point (semaphore operations, copy starts and
/// waits): another core may run from here, as the seed says (interleaving.hpp).
inline void perturb(core_state& core) { interleave_point(core); }

}  // namespace pallas::detail

#if PALLAS_DEFINE_RUNTIME
#  include <pallas/detail/runtime/random_order.ipp>
#endif
