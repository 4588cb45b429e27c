// SPDX-License-Identifier: Apache-2.0
#pragma once
// pl::run_scoped: buffers and semaphores for the extent of a function, per core.
//
//   float total = pl::run_scoped(
//       [&](auto buf, auto sem) { ...; return x; },
//       pltpu::VMEM<float, 8, 128>{}, pltpu::SemaphoreType::DMA<>{});
//   pl::run_scoped<pltpu::SMEM<std::int32_t, 4>>([&](auto s) { ... });   // types as template args
//
// `pl.run_scoped(f, *types)`: each type (pltpu::VMEM<...>, pltpu::SMEM<...>,
// pltpu::SemaphoreType::X<...>) is allocated from the calling core's memory, f is called
// with one ref per type, and the memory is released when f returns or throws, stack-like,
// so run_scoped nests. Returns f's result. Buffers start poisoned in checked mode (NaN,
// INT_MIN); semaphores start at zero. Every core must run the same run_scopeds in the same
// order for a semaphore to have the same id on every core. Checked mode: a semaphore not
// zero, or a copy in flight that touches the scope's memory, when f returns is an error.

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include <pallas/config.hpp>
#include <pallas/detail/runtime/arena.hpp>
#include <pallas/detail/checked/checked_state.hpp>
#include <pallas/error.hpp>
#include <pallas/detail/runtime/device.hpp>
#include <pallas/tpu/scratch.hpp>
#include <pallas/tpu/semaphore.hpp>

namespace pallas {

namespace detail {

/// The calling core's allocation marks; releases them when destroyed.
class scoped_allocation {
 public:
  explicit scoped_allocation(core_state& core)
      : core_(core), vmem_(core.vmem.mark()), smem_(core.smem.mark()), sems_(core.semaphores.mark()),
        origin_(core.checked.allocation_origin) {
    core.checked.allocation_origin = "run_scoped";
  }
  ~scoped_allocation() { release(); }
  scoped_allocation(scoped_allocation const&) = delete;
  scoped_allocation& operator=(scoped_allocation const&) = delete;

  /// Allocation is over: later allocations (nested scopes) are theirs, not ours.
  void allocated() noexcept { core_.checked.allocation_origin = origin_; }

  /// Checked mode, on the normal exit: nothing may outlive the scope.
  void check_exit() const {
    if constexpr (checked_mode) {
      auto& c = core_.checked;
      std::string const flying = c.in_flight_within(core_.vmem.base() + vmem_, core_.vmem.base() + core_.vmem.used()) +
                                 c.in_flight_within(core_.smem.base() + smem_, core_.smem.base() + core_.smem.used()) +
                                 c.in_flight_within(core_.semaphores.base() + sems_,
                                                    core_.semaphores.base() + core_.semaphores.used());
      if (!flying.empty())
        fail<leak_error>("pallas::run_scoped: copies into or out of the scope's buffers, or signaling its "
                         "semaphores, are still in flight when the scope ends: ",
                         flying);
      std::string found;
      {
        std::lock_guard lock(c.mutex);
        for (auto const& blk : c.semaphores) {
          if (blk.offset < sems_) continue;
          for (std::int64_t k = 0; k < blk.count; ++k) {
            void const* cell = core_.semaphores.base() + blk.offset + k * blk.element_bytes;
            std::int32_t const v = read_cell(cell);
            if (v != 0)
              found += (found.empty() ? "" : "; ") + c.semaphore_name_locked(cell) + " holds " + std::to_string(v);
          }
        }
      }
      if (!found.empty())
        fail<leak_error>("pallas::run_scoped: every semaphore must be zero when its scope ends, but ", found);
    }
  }

 private:
  void release() noexcept {
    core_.checked.allocation_origin = origin_;
    if constexpr (checked_mode) core_.checked.drop_semaphores_from(sems_);
    core_.semaphores.release(sems_);
    std::lock_guard lock(core_.early_mutex);
    core_.semaphores_allocated.store(sems_, std::memory_order_release);
    core_.smem.release(smem_);
    core_.vmem.release(vmem_);
  }

  core_state& core_;
  std::int64_t vmem_, smem_, sems_;
  char const* origin_;
};

template <class T>
inline constexpr bool is_scoped_type = ScratchType<T>;

template <class... Types>
constexpr bool check_scoped_types() {
  static_assert((is_scoped_type<Types> && ...),
                "pallas::run_scoped: every type must be a pltpu::VMEM<T, dims...>, pltpu::SMEM<T, dims...> or "
                "pltpu::SemaphoreType::REGULAR/DMA/BARRIER<dims...>");
  return (is_scoped_type<Types> && ...);
}

template <class... Types, class F>
decltype(auto) run_scoped_impl(F&& f) {
  if constexpr (check_scoped_types<Types...>()) {
    static_assert(std::is_invocable_v<F, typename Types::ref_type...>,
                  "pallas::run_scoped: f must take one ref per scoped type, in order");
    if constexpr (std::is_invocable_v<F, typename Types::ref_type...>) {
      using result = std::invoke_result_t<F, typename Types::ref_type...>;
      auto& core = this_core("run_scoped");
      scoped_allocation scope(core);
      std::tuple<typename Types::ref_type...> refs{Types::allocate(core)...};  // in order
      scope.allocated();
      if constexpr (std::is_void_v<result>) {
        std::apply(std::forward<F>(f), refs);
        scope.check_exit();
      } else {
        result r = std::apply(std::forward<F>(f), refs);
        scope.check_exit();
        return r;
      }
    }
  }
}

}  // namespace detail

/// `pl.run_scoped(f, *types)`: `pl::run_scoped(f, pltpu::VMEM<float, 8, 128>{}, ...)`.
template <class F, class... Types>
decltype(auto) run_scoped(F&& f, Types const&...) {
  return detail::run_scoped_impl<Types...>(std::forward<F>(f));
}

/// The same with the types as template arguments: `pl::run_scoped<pltpu::VMEM<...>>(f)`.
template <class T0, class... Types, class F>
decltype(auto) run_scoped(F&& f) {
  return detail::run_scoped_impl<T0, Types...>(std::forward<F>(f));
}

}  // namespace pallas
