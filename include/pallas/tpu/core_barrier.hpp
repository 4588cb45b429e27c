// SPDX-License-Identifier: Apache-2.0
#pragma once
// Synchronising the cores of a device.
//
//   pltpu::core_barrier<"core">(sem);              // pltpu.core_barrier(sem, core_axis_name="core")
//   pltpu::run_on_first_core<"core">([&] { ... }); // @pltpu.run_on_first_core("core")
//
// core_barrier signals the same semaphore on every other core of the axis (core_index=i),
// then waits for num_cores - 1: no core leaves the barrier before every core entered it.
// One semaphore serves any number of consecutive barriers. It must be a ()-shaped REGULAR
// or BARRIER semaphore (a DMA semaphore counts bytes of copies).

#include <cstdint>
#include <type_traits>
#include <utility>

#include <pallas/detail/checked/checked_access.hpp>
#include <pallas/fixed_string.hpp>
#include <pallas/program_id.hpp>
#include <pallas/shape.hpp>
#include <pallas/detail/runtime/device.hpp>
#include <pallas/detail/runtime/trace_hooks.hpp>
#include <pallas/tpu/semaphore.hpp>

namespace pallas::tpu {

/// `pltpu.core_barrier(sem, core_axis_name=AxisName)`.
template <fixed_string AxisName, SemaphoreRef S>
void core_barrier(S const& sem, pallas::detail::place where = pallas::detail::place::here()) {
  static_assert(S::rank() == 0, "pallas::core_barrier: the semaphore must be ()-shaped; pick one with .at(i)");
  static_assert(S::rank() != 0 || !std::is_same_v<typename S::value_type, semaphore<semaphore_kind::dma>>,
                "pallas::core_barrier: the semaphore must be a REGULAR or BARRIER semaphore, not a DMA one");
  index_t const n = axis_size<AxisName>();
  index_t const me = axis_index<AxisName>();
  for (index_t i = 0; i < n; ++i)
    if (i != me) semaphore_signal(sem, 1, i, where);
  auto& core = pallas::detail::this_core("core_barrier");
  pallas::detail::traced_wait traced(core, &sem.data()->count, static_cast<std::int32_t>(n - 1), "core_barrier", false);
  pallas::detail::wait_on_semaphore(core, sem.data()->count, static_cast<std::int32_t>(n - 1), "core_barrier", where);
}

/// `@pltpu.run_on_first_core(AxisName)`: calls f() on core 0 of the axis only.
template <fixed_string AxisName, class F>
void run_on_first_core(F&& f) {
  static_assert(std::is_invocable_v<F>, "pallas::run_on_first_core: f must be callable with no arguments");
  if (axis_index<AxisName>() == 0) std::forward<F>(f)();
}

}  // namespace pallas::tpu
