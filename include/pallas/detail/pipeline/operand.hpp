// SPDX-License-Identifier: Apache-2.0
#pragma once
// One pipeline operand at run time, on one core: its HBM ref, index map, VMEM slots and
// their DMA semaphores; it turns the plan's copy events into DMA tasks (cut at the array's
// end for ragged blocks) and hands the body a VMEM ref to a slot.

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <pallas/block_spec.hpp>
#include <pallas/config.hpp>
#include <pallas/detail/pipeline/plan.hpp>
#include <pallas/detail/pipeline/rules.hpp>
#include <pallas/detail/pipeline/spec_rules.hpp>
#include <pallas/detail/runtime/core.hpp>
#include <pallas/detail/runtime/cost_counters.hpp>
#include <pallas/detail/runtime/dma_engine_ops.hpp>
#include <pallas/detail/runtime/dma_task.hpp>
#include <pallas/detail/runtime/uninitialized.hpp>
#include <pallas/dtype.hpp>
#include <pallas/slice.hpp>
#include <pallas/ref.hpp>
#include <pallas/shape.hpp>
#include <pallas/trace/recorder.hpp>

namespace pallas::detail {

/// How operand Spec over ref RefT reaches the body.
template <class Spec, class RefT>
constexpr operand_kind kind_of_operand() {
  if constexpr (Spec::raw)
    return operand_kind::raw;
  else if constexpr (RefT::space == Spec::space)
    return operand_kind::view;
  else
    return operand_kind::buffered;
}

/// The plan's view of an operand of spec Spec over ref RefT (array extents from the ref).
template <class Spec, class RefT>
constexpr operand_desc describe_operand(bool output, int position, std::array<index_t, max_block_rank> const& array) {
  operand_desc d;
  d.kind = kind_of_operand<Spec, RefT>();
  d.output = output;
  d.raw = Spec::raw;
  d.position = position;
  if constexpr (!Spec::raw) {
    d.buffer_count = Spec::buffer_count;
    d.revisit_any = Spec::revisit == RevisitMode::ANY;
    d.lookahead = Spec::lookahead;
    d.rank = static_cast<int>(Spec::rank);
    d.values = static_cast<int>(Spec::values);
    int at = 0;
    for (std::size_t k = 0; k < Spec::rank; ++k) {
      d.kind_of[k] = Spec::dims[k].kind;
      d.block[k] = Spec::dims[k].size;
      d.low[k] = Spec::dims[k].low;
      d.high[k] = Spec::dims[k].high;
      d.array[k] = array[k];
      d.value_at[k] = at;
      at += Spec::dims[k].kind == block_dim_kind::bounded ? 2 : 1;
    }
  }
  return d;
}

/// The extents of a ref, padded to max_block_rank.
template <class RefT>
constexpr std::array<index_t, max_block_rank> extents_of(RefT const& ref) {
  std::array<index_t, max_block_rank> e{};
  for (std::size_t d = 0; d < RefT::rank(); ++d) e[d] = ref.extent(d);
  return e;
}

/// The block index operand Spec's index map gives at a grid point (the scalar-prefetch refs
/// `extra` follow the grid indices): Spec::values integers.
template <class Spec, std::size_t R, class Extra>
constexpr void block_index_at(typename Spec::index_map_type const& map, std::array<index_t, R> const& point,
                              Extra const& extra, index_t* out) {
  auto const b = [&]<std::size_t... A>(std::index_sequence<A...>) {
    if constexpr (std::tuple_size_v<Extra> == 0)
      return to_block_indices<Spec::values>(map(point[A]...));
    else
      return std::apply([&](auto const&... e) { return to_block_indices<Spec::values>(map(point[A]..., e...)); }, extra);
  }(std::make_index_sequence<R>{});
  for (std::size_t d = 0; d < Spec::values; ++d) out[d] = b[d];
}

/// The sub-view of `ref` a block viewed in place is: `ref.at(ds<size>(start), ...)`, squeezed
/// dims indexed away.
template <class Spec, class RefT, class Starts, std::size_t... D>
constexpr auto block_view_of(RefT const& ref, Starts const& start, std::index_sequence<D...>) {
  auto indexer = [&](auto d) {
    constexpr auto dim = Spec::dims[decltype(d)::value];
    if constexpr (dim.kind == block_dim_kind::squeezed)
      return static_cast<index_t>(start[decltype(d)::value]);
    else
      return ds<dim.size>(static_cast<index_t>(start[decltype(d)::value]));
  };
  return ref.at(indexer(std::integral_constant<std::size_t, D>{})...);
}

/// The ref the body receives for an operand of spec Spec over RefT: a block in the spec's
/// memory, the operand's own ref (ANY/HBM specs), or a sub-view of it (viewed in place).
template <class Spec, class RefT>
auto body_ref_type() {
  if constexpr (Spec::raw)
    return std::type_identity<RefT>{};
  else if constexpr (RefT::space == Spec::space)
    return std::type_identity<decltype(block_view_of<Spec>(std::declval<RefT const&>(), std::array<index_t, Spec::rank>{},
                                                          std::make_index_sequence<Spec::rank>{}))>{};
  else
    return std::type_identity<Ref<std::remove_cv_t<typename RefT::value_type>, typename Spec::block_shape, Spec::space>>{};
}
template <class Spec, class RefT>
using body_ref_t = typename decltype(body_ref_type<Spec, RefT>())::type;

template <class Spec, class RefT>
class pipeline_operand {
 public:
  using T = std::remove_cv_t<typename RefT::value_type>;  // inputs' refs are read-only
  using spec_type = Spec;
  using block_ref = body_ref_t<Spec, RefT>;
  static constexpr std::size_t rank = Spec::rank;
  static constexpr operand_kind kind = kind_of_operand<Spec, RefT>();
  static constexpr bool raw = kind != operand_kind::buffered;  ///< no copies of its own

  pipeline_operand(Spec const& spec, RefT const& ref, operand_desc const& desc, caller who)
      : spec_(spec), ref_(ref), desc_(desc), who_(who) {}

  Spec const& spec() const noexcept { return spec_; }
  RefT const& ref() const noexcept { return ref_; }
  operand_desc const& desc() const noexcept { return desc_; }
  std::string name() const { return operand_name(desc_); }

  /// Counts this operand's copies in the cost report's row for it in pipeline `pipeline`.
  void count_traffic(void const* pipeline) noexcept {
    if constexpr (kind == operand_kind::buffered) traffic_ = pipeline_traffic_row(pipeline, desc_.output, desc_.position, Spec::space);
  }

  /// Takes `buffer_count` slots in the core's VMEM or SMEM (released with the arena's mark).
  void allocate(core_state& core, int buffer_count) {
    if constexpr (kind == operand_kind::buffered) {
      buffer_count_ = buffer_count;
      auto const bytes = static_cast<std::int64_t>(buffer_count) * Spec::block_elements *
                         static_cast<std::int64_t>(sizeof(T));
      auto& memory = Spec::space == memory_space::smem ? core.smem : core.vmem;
      slots_ = reinterpret_cast<T*>(memory.allocate(bytes, "pipeline buffers of " + name()));
      if (uninitialized_fill(core.launch->conventions.uninitialized, fill_))
        std::fill_n(slots_, buffer_count * Spec::block_elements, fill_);
      else
        fill_ = dtype_traits<T>::poison();
      fill_clipped_ = uninitialized_fill(core.launch->conventions.uninitialized, fill_);
      sems_ = std::make_unique<std::atomic<std::int32_t>[]>(static_cast<std::size_t>(buffer_count));
      started_ns_.assign(static_cast<std::size_t>(buffer_count), 0);
      started_cpu_ns_.assign(static_cast<std::size_t>(buffer_count), 0);
    }
  }

  /// Starts the copy of block `b` into slot `slot` (fetch) or out of it (write-back).
  void start(core_state& core, std::span<index_t const> b, int slot, bool to_hbm) {
    bool clipped = false;
    auto task = block_task(b, slot, to_hbm, clipped);
    // Out-of-bounds elements of a ragged or padded input block are unspecified: fill them as
    // uninitialized memory (poison in checked mode).
    if (!to_hbm && clipped && fill_clipped_) std::fill_n(slot_data(slot), Spec::block_elements, fill_);
    task.semaphore = &sems_[static_cast<std::size_t>(slot)];
    task.streaming = to_hbm;
    if (traffic_) traffic_->add(task.bytes);
    if (trace::enabled()) {
      started_ns_[static_cast<std::size_t>(slot)] = detail::now_ns();
      started_cpu_ns_[static_cast<std::size_t>(slot)] = detail::thread_cpu_ns();
    }
    core.dma.start(core, task, {});
  }

  /// Waits for the copy of block `b` in slot `slot`.
  void wait(core_state& core, std::span<index_t const> b, int slot, bool to_hbm) {
    bool clipped = false;
    auto const bytes = block_task(b, slot, to_hbm, clipped).bytes;
    core.dma.wait(core, sems_[static_cast<std::size_t>(slot)], bytes, caller_name(who_), {});
    if (trace::enabled() && started_ns_[static_cast<std::size_t>(slot)] != 0) {
      // The DMA track shows each copy in flight, from its start to the end of its wait.
      trace::event e;
      e.name = name() + (to_hbm ? " write-back of block " : " fetch of block ") + tuple_string(b) + " (slot " +
               std::to_string(slot) + ")";
      e.launch = core.launch->id;
      e.core = core.index;
      e.dma = true;
      e.category = "pipeline_copy";
      e.lane = desc_.position + (desc_.output ? 1000 : 0);
      e.lane_name = name();
      e.bytes = bytes;
      e.operand = name();
      // No grid point: the wait runs before the step that uses the block (its name says which).
      e.begin_ns = started_ns_[static_cast<std::size_t>(slot)];
      e.cpu_ns = detail::cpu_since(started_cpu_ns_[static_cast<std::size_t>(slot)]);
      e.end_ns = detail::now_ns();
      started_ns_[static_cast<std::size_t>(slot)] = 0;
      detail::recorder::instance().record(std::move(e));
    }
  }

  /// The body's ref: slot `slot`, or for a block viewed in place its sub-view at `b`.
  block_ref body_ref(int slot, std::span<index_t const> b) const {
    if constexpr (kind == operand_kind::raw) {
      return ref_;
    } else if constexpr (kind == operand_kind::view) {
      std::array<index_t, rank> start{};
      for (std::size_t d = 0; d < rank; ++d) start[d] = desc_.start(d, b);
      return block_view_of<Spec>(ref_, start, std::make_index_sequence<rank>{});
    } else {
      return block_ref(slot_data(slot), typename Spec::block_shape{});
    }
  }

 private:
  T* slot_data(int slot) const { return slots_ + static_cast<index_t>(slot) * Spec::block_elements; }

  /// A DMA task moving block `b` between the operand's memory and a slot: the part of the
  /// block inside the array (a ragged or padded block is cut at the array's ends).
  dma_task block_task(std::span<index_t const> b, int slot, bool to_hbm, bool& clipped) const {
    dma_task t;
    // An input's ref is read-only (T const): it is only ever a copy's source (to_hbm is
    // false for inputs; emit_pipeline and pallas_call reject read-only outputs).
    T* hbm = const_cast<T*>(ref_.data());
    T* local = slot_data(slot);
    index_t slot_stride = 1;
    std::array<index_t, rank> slot_strides{};
    for (std::size_t d = rank; d-- > 0;) {
      slot_strides[d] = slot_stride;
      slot_stride *= Spec::dims[d].size;
    }
    clipped = false;
    t.rank = static_cast<int>(rank);
    t.element_bytes = sizeof(T);
    index_t elements = 1;
    for (std::size_t d = 0; d < rank; ++d) {
      index_t const start = desc_.start(d, b), length = desc_.length(d, b);
      index_t const lo = std::max<index_t>(start, 0), hi = std::min(start + length, ref_.extent(d));
      index_t const len = std::max<index_t>(hi - lo, 0);
      clipped |= len != Spec::dims[d].size;
      hbm += lo * ref_.stride(d);
      local += (lo - start) * slot_strides[d];
      t.extents[d] = len;
      elements *= len;
      t.src_strides[d] = to_hbm ? slot_strides[d] : ref_.stride(d);
      t.dst_strides[d] = to_hbm ? ref_.stride(d) : slot_strides[d];
    }
    t.src = reinterpret_cast<std::byte const*>(to_hbm ? static_cast<T const*>(local) : hbm);
    t.dst = reinterpret_cast<std::byte*>(to_hbm ? hbm : local);
    t.bytes = static_cast<std::int32_t>(elements * static_cast<index_t>(sizeof(T)));
    return t;
  }

  Spec spec_;
  RefT ref_;
  operand_desc desc_;
  caller who_;
  int buffer_count_ = 0;
  T* slots_ = nullptr;
  std::unique_ptr<std::atomic<std::int32_t>[]> sems_;
  std::vector<std::int64_t> started_ns_;      // tracing: when each slot's copy started
  std::vector<std::int64_t> started_cpu_ns_;  // tracing: the thread's CPU clock then
  T fill_{};                              // what uninitialized slot elements hold
  bool fill_clipped_ = false;
  traffic_row* traffic_ = nullptr;        // the cost report's row (cost_counters.hpp)
};

}  // namespace pallas::detail
