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
[[gnu::cold]] void check_semaphores_zero(launch_state const& launch);

/// The end of a core's body (dma_engine::finish): copies never waited are leaks in checked
/// mode; copies still queued move now.
inline void finish_core(core_state& core) { core.dma.finish(core); }

}  // namespace pallas::detail

#if PALLAS_DEFINE_RUNTIME
#  include <pallas/detail/runtime/end_of_kernel.ipp>
#endif
