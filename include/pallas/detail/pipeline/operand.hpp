// SPDX-License-Identifier: Apache-2.0
#pragma once
// The typed side of a pipeline operand: how its spec and ref describe it to the plan
// (describe_operand), the block index its index map gives (block_index_at), its run-time
// copies with the types erased (make_operand_io, operand_io.hpp) and the ref the body
// receives at a step (body_ref_of).

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <tuple>
#include <type_traits>
#include <utility>

#include <pallas/block_spec.hpp>
#include <pallas/config.hpp>
#include <pallas/detail/pipeline/operand_io.hpp>
#include <pallas/detail/pipeline/plan.hpp>
#include <pallas/detail/pipeline/spec_rules.hpp>
#include <pallas/detail/runtime/uninitialized.hpp>
#include <pallas/dtype.hpp>
#include <pallas/memory_space.hpp>
#include <pallas/ref.hpp>
#include <pallas/shape.hpp>
#include <pallas/slice.hpp>

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

/// What spec Spec over ref RefT says of an operand, its array extents, role and position
/// aside: a constant, so that a kernel's operands cost it data rather than code.
template <class Spec, class RefT>
inline constexpr operand_desc spec_desc = [] {
  operand_desc d;
  d.kind = kind_of_operand<Spec, RefT>();
  d.raw = Spec::raw;
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
      d.value_at[k] = at;
      at += Spec::dims[k].kind == block_dim_kind::bounded ? 2 : 1;
    }
  }
  return d;
}();

/// `desc` as operand `position` of the inputs or outputs, over an array of extents `array`.
constexpr operand_desc placed_operand(operand_desc d, bool output, int position,
                                      std::array<index_t, max_block_rank> const& array) {
  d.output = output;
  d.position = position;
  for (int k = 0; k < d.rank; ++k) d.array[static_cast<std::size_t>(k)] = array[static_cast<std::size_t>(k)];
  return d;
}

/// The plan's view of an operand of spec Spec over ref RefT (array extents from the ref).
template <class Spec, class RefT>
constexpr operand_desc describe_operand(bool output, int position, std::array<index_t, max_block_rank> const& array) {
  return placed_operand(spec_desc<Spec, RefT>, output, position, array);
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

/// The fill of uninitialized elements of type T under `policy`, as bytes (operand_io's
/// fill_function): one function per element type, not per pipeline.
template <class T>
bool fill_bytes_of(uninitialized_policy policy, std::byte* value) noexcept {
  static_assert(sizeof(T) <= max_element_bytes, "pallas: pipeline elements of at most 16 bytes");
  T v{};
  bool const fills = uninitialized_fill(policy, v);
  std::memcpy(value, &v, sizeof(T));
  return fills;
}

/// Operand Spec over `ref` at run time, its types erased (operand_io.hpp).
template <class Spec, class RefT>
operand_io make_operand_io(RefT const& ref, operand_desc const& desc, caller who) {
  using T = std::remove_cv_t<typename RefT::value_type>;
  std::array<index_t, RefT::rank() + 1> extents{}, strides{};
  for (std::size_t d = 0; d < RefT::rank(); ++d) {
    extents[d] = ref.extent(d);
    strides[d] = ref.stride(d);
  }
  memory_space space = memory_space::any;
  if constexpr (!Spec::raw) space = Spec::space;
  // An input's ref is read-only (T const): it is only ever a copy's source (emit_pipeline
  // and pallas_call reject read-only outputs).
  auto* const hbm = reinterpret_cast<std::byte*>(const_cast<T*>(ref.data()));
  return operand_io(desc, who, space, sizeof(T), &fill_bytes_of<T>, hbm, {extents.data(), RefT::rank()},
                    {strides.data(), RefT::rank()});
}

/// The ref the body receives for operand Spec over `ref` at a step: slot `slot` of `io`,
/// the operand's own ref (ANY/HBM specs), or for a block viewed in place its sub-view at
/// block index `b`.
template <class Spec, class RefT>
body_ref_t<Spec, RefT> body_ref_of(operand_io const& io, RefT const& ref, int slot, std::span<index_t const> b) {
  constexpr operand_kind kind = kind_of_operand<Spec, RefT>();
  if constexpr (kind == operand_kind::raw) {
    return ref;
  } else if constexpr (kind == operand_kind::view) {
    std::array<index_t, Spec::rank> start{};
    for (std::size_t d = 0; d < Spec::rank; ++d) start[d] = io.desc().start(d, b);
    return block_view_of<Spec>(ref, start, std::make_index_sequence<Spec::rank>{});
  } else {
    using T = std::remove_cv_t<typename RefT::value_type>;
    return body_ref_t<Spec, RefT>(reinterpret_cast<T*>(io.slot_data(slot)), typename Spec::block_shape{});
  }
}

}  // namespace pallas::detail
