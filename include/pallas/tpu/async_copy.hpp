// SPDX-License-Identifier: Apache-2.0
#pragma once
// Asynchronous copies: `pltpu::make_async_copy(src, dst, sem)` makes a descriptor whose
// start() issues the copy and whose wait() blocks until the DMA semaphore holds the
// descriptor's byte count, then subtracts it. Several copies may share one semaphore; a
// descriptor made only to wait (for a copy started elsewhere, same byte count) works.
// `pltpu::async_copy(src, dst, sem)` is make_async_copy(...) followed by start().
//
// The engine (detail/runtime/dma_engine.hpp): a started copy's bytes move no later than
// the wait that needs them, on the issuing core or on the device's DMA thread
// (pltpu::set_dma_executor); pltpu::set_dma_schedule moves them earlier or in a seeded
// random order. Reading the destination, or writing the source,
// before wait() is a race, as on hardware: checked mode reports it (pallas::race_error)
// naming the copy, where it started and the access. Checked mode also poisons the
// destination at start() (reads before the wait see NaN / INT_MIN), snapshots the source
// (a write to it before the wait is reported when the copy retires), and reports copies
// started and never waited when the kernel ends.

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include <pallas/config.hpp>
#include <pallas/detail/checked/checked_access.hpp>
#include <pallas/detail/checked/checked_state.hpp>
#include <pallas/detail/checked/region_snapshot.hpp>
#include <pallas/detail/runtime/cost_counters.hpp>
#include <pallas/detail/runtime/dma_engine_ops.hpp>
#include <pallas/detail/runtime/dma_task.hpp>
#include <pallas/detail/runtime/trace_hooks.hpp>
#include <pallas/dtype.hpp>
#include <pallas/ref.hpp>
#include <pallas/detail/runtime/device.hpp>
#include <pallas/tpu/semaphore.hpp>
#include <pallas/tpu/sync_copy.hpp>

namespace pallas::tpu {

/// What `pltpu::make_async_copy(src, dst, sem)` returns: a copy to `.start()` and `.wait()`
/// (the wait consumes the copy's byte count from the DMA semaphore).
template <class Src, class Dst, class Sem>
class async_copy_descriptor {
 public:
  using value_type = std::remove_cv_t<typename Src::value_type>;  ///< the element type
  /// make_async_copy reported a read-only destination (a kernel's input); nothing else is.
  static constexpr bool writable = !std::is_const_v<typename Dst::value_type>;

  /// Checks that the shapes agree (pallas::shape_error otherwise).
  async_copy_descriptor(Src src, Dst dst, Sem sem) : src_(src), dst_(dst), sem_(sem) {
    pallas::detail::check_copy_extents(src_, dst_, "make_async_copy");
  }

  /// Issues the copy (`.start()`).
  void start(pallas::detail::place where = pallas::detail::place::here()) const {
    if constexpr (writable) {
      auto& core = pallas::detail::this_core("async_copy.start");
      core.launch->check_aborted();
      auto task = pallas::detail::dma_task::make(src_, dst_);
      task.semaphore = &sem_.data()->count;
      if constexpr (checked_mode) register_copy(core, task, where);
      pallas::detail::count_copy(pallas::detail::traffic_kind::async_copy, Src::space, Dst::space, task.bytes);
      if (trace::enabled())
        pallas::detail::trace_copy_start(core, task.semaphore, task.bytes,
                                         pallas::detail::trace_copy_operand<Src, Dst>(src_, where));
      core.dma.start(core, task, where);
    } else {
      (void)where;
    }
  }

  /// Blocks until the semaphore holds this copy's byte count, then subtracts it (`.wait()`).
  void wait(pallas::detail::place where = pallas::detail::place::here()) const {
    auto& core = pallas::detail::this_core("async_copy.wait");
    pallas::detail::traced_wait traced(core, &sem_.data()->count, bytes(), "async_copy.wait", true);
    core.dma.wait(core, sem_.data()->count, bytes(), "async_copy.wait", where);
  }

  /// The bytes this descriptor's wait() consumes (prod(shape) x itemsize).
  std::int32_t bytes() const {
    index_t const total = dst_.size() * static_cast<index_t>(sizeof(value_type));
    if (total > INT32_MAX)
      pallas::detail::fail("pallas::make_async_copy: a DMA moves at most 2^31-1 bytes, this one ", total);
    return static_cast<std::int32_t>(total);
  }

  Src const& src() const noexcept { return src_; }  ///< the source ref
  Dst const& dst() const noexcept { return dst_; }  ///< the destination ref
  Sem const& semaphore() const noexcept { return sem_; }  ///< the DMA semaphore

 private:
  /// Checked mode: the copy must not race with copies in flight; its source is hashed and
  /// its destination poisoned until its bytes move.
  void register_copy(pallas::detail::core_state& core, pallas::detail::dma_task& task,
                     pallas::detail::place where) const {
    namespace d = pallas::detail;
    d::copy_record rec;
    rec.id = core.checked.next_copy_id;
    rec.src = task.src_region();
    rec.dst = task.dst_region();
    rec.src_space = Src::space;
    rec.dst_space = Dst::space;
    rec.dtype = dtype_traits<value_type>::name;
    rec.rank = task.rank;
    for (int r = 0; r < task.rank; ++r) rec.extents[r] = task.extents[r];
    rec.semaphore = task.semaphore;
    rec.bytes = task.bytes;
    rec.started = where;
    rec.element_bytes = static_cast<std::int64_t>(sizeof(value_type));
    auto const describe_new = [&] { return core.checked.describe(rec); };
    if (d::regions_overlap_unequal(rec.src, rec.dst))
      d::fail<race_error>("pallas::make_async_copy: the source and destination of ", describe_new(), " overlap");
    d::check_copy_conflicts(core, rec.src, rec.dst, describe_new);
    rec.src_hash = d::hash_region(rec.src);
    rec.check_src_hash = !rec.src.intersects(rec.dst);  // a copy onto itself changes its source
    if (!d::schedule_is_eager(core) && task.bytes != 0 && !rec.src.intersects(rec.dst)) {
      value_type const poison = dtype_traits<value_type>::poison();
      std::memcpy(rec.poison, &poison, sizeof(value_type));
      poison_destination(poison);
      rec.poisoned_dst = true;
    }
    task.id = core.checked.add_copy(rec);
    task.tracked = true;
  }

  void poison_destination(value_type poison) const {
    constexpr std::size_t rank = Dst::rank();
    if constexpr (rank == 0) {
      *dst_.data() = poison;
    } else {
      index_t ix[rank]{};
      for (;;) {
        index_t off = 0;
        for (std::size_t d = 0; d < rank; ++d) off += ix[d] * dst_.stride(d);
        dst_.data()[off] = poison;
        std::size_t d = rank;
        while (d-- > 0) {
          if (++ix[d] < dst_.extent(d)) break;
          ix[d] = 0;
        }
        if (d == static_cast<std::size_t>(-1)) return;
      }
    }
  }

  Src src_;
  Dst dst_;
  Sem sem_;
};

/// `pltpu.make_async_copy(src, dst, sem)`.
template <AnyRef Src, AnyRef Dst, SemaphoreRef Sem>
auto make_async_copy(Src const& src, Dst const& dst, Sem const& sem) {
  pallas::detail::check_copy_types<Src, Dst>("make_async_copy");
  static_assert(Sem::rank() == 0,
                "pallas::make_async_copy: the semaphore must be ()-shaped; pick one with .at(i)");
  static_assert(Sem::rank() != 0 || std::is_same_v<typename Sem::value_type, semaphore<semaphore_kind::dma>>,
                "pallas::make_async_copy: the semaphore must be a DMA semaphore "
                "(pltpu::SemaphoreType::DMA)");
  return async_copy_descriptor<Src, Dst, Sem>(src, dst, sem);
}

/// `pltpu.async_copy(src, dst, sem)`: make_async_copy(...).start(); returns the descriptor.
template <AnyRef Src, AnyRef Dst, SemaphoreRef Sem>
auto async_copy(Src const& src, Dst const& dst, Sem const& sem,
                pallas::detail::place where = pallas::detail::place::here()) {
  auto copy = make_async_copy(src, dst, sem);
  copy.start(where);
  return copy;
}

}  // namespace pallas::tpu
