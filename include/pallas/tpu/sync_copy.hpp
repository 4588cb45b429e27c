// SPDX-License-Identifier: Apache-2.0
#pragma once
// pltpu::sync_copy(src, dst): a blocking DMA between refs in any memory spaces (HBM, VMEM,
// SMEM) and their `.at(...)` views. Shapes and dtypes must agree: statically where the
// types know them, at run time otherwise. In checked mode it must not read the destination,
// nor write the source or destination, of an async copy in flight (pallas::race_error).

#include <mutex>
#include <type_traits>

#include <pallas/config.hpp>
#include <pallas/detail/checked/checked_access.hpp>
#include <pallas/detail/runtime/cost_counters.hpp>
#include <pallas/detail/runtime/dma_engine_ops.hpp>
#include <pallas/detail/runtime/fork_guard.hpp>
#include <pallas/detail/runtime/trace_hooks.hpp>
#include <pallas/error.hpp>
#include <pallas/memory_space.hpp>
#include <pallas/ref.hpp>
#include <pallas/shape.hpp>
#include <pallas/detail/runtime/device.hpp>

#if defined(__SANITIZE_THREAD__)
#  define PALLAS_DETAIL_TSAN 1
#elif defined(__has_feature)
#  if __has_feature(thread_sanitizer)
#    define PALLAS_DETAIL_TSAN 1
#  endif
#endif
#ifndef PALLAS_DETAIL_TSAN
#  define PALLAS_DETAIL_TSAN 0
#endif

namespace pallas {

namespace detail {

/// Under ThreadSanitizer only: sync_copy's writes into HBM take this lock. Several cores
/// may write the same HBM bytes with the same values (the quickstart's fill_42 runs its
/// body, copy included, on every core), which C++ calls a data race and TSan reports.
/// Reads of HBM take no lock, so a core reading what another core writes is still reported.
inline std::mutex& tsan_hbm_write_mutex() {
  static std::mutex m;
  hold_across_fork<&tsan_hbm_write_mutex>();
  return m;
}

template <class A, class B>
constexpr bool static_extents_agree() {
  if constexpr (A::rank() != B::rank()) {
    return false;
  } else {
    for (std::size_t r = 0; r < A::rank(); ++r)
      if (A::static_extent(r) != dyn && B::static_extent(r) != dyn &&
          A::static_extent(r) != B::static_extent(r))
        return false;
    return true;
  }
}

/// Holds when the copy's two shapes (both named in the compiler's note) agree statically.
template <class SrcShape, class DstShape>
struct copy_shapes_agree : std::bool_constant<static_extents_agree<SrcShape, DstShape>()> {};

/// The compile-time rules of every copy (sync_copy and async copies), gated so that one
/// mistake yields one error. Returns whether they hold. The destination must be writable:
/// kernels see their inputs as refs of const elements.
template <class Src, class Dst>
constexpr bool check_copy_types(char const* /*who*/) {
  static_assert(AnyRef<Src> && AnyRef<Dst>, "pallas::copy: source and destination must be pl::Ref views");
  if constexpr (AnyRef<Src> && AnyRef<Dst>) {
    using src_t = std::remove_cv_t<typename Src::value_type>;
    using dst_t = std::remove_cv_t<typename Dst::value_type>;
    static_assert(Src::space != memory_space::semaphore && Dst::space != memory_space::semaphore,
                  "pallas::copy: semaphores cannot be copied");
    static_assert(!std::is_const_v<typename Dst::value_type>,
                  "pallas::kernel: input refs are read-only: a copy cannot write into a kernel's input (its "
                  "destination is a ref of const elements); write an output, or alias the input to an output "
                  "with pallas_call's input_output_aliases");
    static_assert(std::is_const_v<typename Dst::value_type> || std::is_same_v<src_t, dst_t>,
                  "pallas::copy: source and destination must have the same dtype");
    if constexpr (!std::is_const_v<typename Dst::value_type> && std::is_same_v<src_t, dst_t>) {
      static_assert(Src::rank() == Dst::rank(),
                    "pallas::copy: source and destination must have the same rank");
      if constexpr (Src::rank() == Dst::rank()) {
        static_assert(copy_shapes_agree<typename Src::shape_type, typename Dst::shape_type>::value,
                      "pallas::copy: source and destination must have the same shape");
        return copy_shapes_agree<typename Src::shape_type, typename Dst::shape_type>::value;
      }
    }
  }
  return false;
}

/// The run-time half: extents that only the values know.
template <class Src, class Dst>
void check_copy_extents(Src const& src, Dst const& dst, char const* who) {
  for (std::size_t r = 0; r < Src::rank(); ++r)
    if (src.extent(r) != dst.extent(r))
      fail<shape_error>("pallas::", who, ": source shape ", src.shape(), " and destination shape ",
                        dst.shape(), " differ in dimension ", r);
}

}  // namespace detail

namespace tpu {

/// `pltpu.sync_copy(src, dst)`: copies src into dst and returns when the copy is complete.
template <class Src, class Dst>
void sync_copy(Src const& src, Dst const& dst, pallas::detail::place where = pallas::detail::place::here()) {
  if constexpr (pallas::detail::check_copy_types<Src, Dst>("sync_copy")) {
    auto& core = pallas::detail::this_core("sync_copy");
    core.launch->check_aborted();
    pallas::detail::check_copy_extents(src, dst, "sync_copy");
    if constexpr (checked_mode) {
      if (core.checked.in_flight.load(std::memory_order_relaxed) != 0 || core.launch->num_cores > 1) {
        auto const s = pallas::detail::region_of(src), d = pallas::detail::region_of(dst);
        pallas::detail::check_copy_conflicts(core, s, d, [&] {
          return pallas::detail::str("sync_copy from ", core.checked.memory.address(s.lo), " to ",
                                     core.checked.memory.address(d.lo), " at ", where.file_name(), ':', where.line);
        });
      }
    } else {
      (void)where;
    }
    if (static_cast<void const*>(src.data()) == static_cast<void const*>(dst.data()) &&
        src.strides() == dst.strides())
      return;  // a copy onto itself
    // Through the core's DMA engine (its order and ids), moved now: a sync copy's wait
    // follows its start at once, so no other thread could overlap it with anything.
    auto const task = pallas::detail::dma_task::make(src, dst);
    pallas::detail::count_copy(pallas::detail::traffic_kind::sync_copy, Src::space, Dst::space, task.bytes);
    auto const traced = pallas::detail::traced_sync_copy(
        core, task.bytes, [&] { return pallas::detail::trace_copy_operand<Src, Dst>(src, where); });
    if constexpr (PALLAS_DETAIL_TSAN && is_dma_only(Dst::space))
      core.dma.copy_now(core, task, where, &pallas::detail::tsan_hbm_write_mutex());
    else
      core.dma.copy_now(core, task, where);
  }
}

}  // namespace tpu
}  // namespace pallas
