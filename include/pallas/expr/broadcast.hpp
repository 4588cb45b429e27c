// SPDX-License-Identifier: Apache-2.0
#pragma once
// Broadcasting an expression to a larger static shape without materializing it: what
// `pl::broadcast_to<8, 128>(x)` returns, and how `block op= value` stretches a value of
// shape (8, 1) or (1, 128) over an (8, 128) block. Trailing dimensions align (numpy);
// extents of 1 stretch. The rules, with both shapes in the message:
//   broadcast_to       every extent of the operand is the target's or 1
//   block op= value    the same, and the value's rank is at most the block's (numpy's
//                      rule for in-place operators: the result keeps the block's shape)

#include <cstddef>
#include <type_traits>
#include <utility>

#include <pallas/expr/expression.hpp>
#include <pallas/shape.hpp>

namespace pallas::detail {

template <class S, class Target>
struct broadcast_to_check;
template <index_t... A, index_t... B>
struct broadcast_to_check<extents<A...>, extents<B...>> {
  static constexpr bool ok = ((A == B || A == 1) && ...);
  static constexpr bool check() {
    static_assert(((A == B || A == 1) && ...),
                  "pallas::broadcast_to: every extent of the operand must be the target's or 1 "
                  "(operand extent, target extent)");
    return ok;
  }
};

/// `block op= value` with a value of shape VS padded to the block's rank, block shape S.
template <class Padded, class S>
struct compound_broadcast;
template <index_t... A, index_t... B>
struct compound_broadcast<extents<A...>, extents<B...>> {
  static constexpr bool ok = ((A == B || A == 1) && ...);
  static constexpr bool check() {
    static_assert(((A == B || A == 1) && ...),
                  "pallas::store: `block op= value` broadcasts the value to the block's shape: "
                  "every extent of the value must be the block's or 1 (value shape, block "
                  "shape)");
    return ok;
  }
};

template <class VS, class S, bool = (VS::rank() <= S::rank())>
struct compound_broadcast_of {
  using type = compound_broadcast<typename pad_shape<VS, S::rank()>::type, S>;
  static constexpr bool ok = type::ok;
  static constexpr bool check() { return type::check(); }
};
template <class VS, class S>
struct compound_broadcast_of<VS, S, false> {
  static constexpr bool ok = false;
  static constexpr bool check() {
    static_assert(VS::rank() <= S::rank(),
                  "pallas::store: `block op= value` broadcasts the value to the block's shape: "
                  "the value's rank must not exceed the block's (value rank <= block rank)");
    return false;
  }
};

/// Whether `block (shape S) op= value (shape VS)` broadcasts.
template <class VS, class S>
inline constexpr bool compound_broadcastable_v = compound_broadcast_of<VS, S>::ok;

/// broadcast_to: the operand walked by index, never materialized.
template <class Shape, class A>
class broadcast_node : public expr_methods<broadcast_node<Shape, A>> {
  using sa = typename A::shape_type;

 public:
  using value_type = typename A::value_type;
  using shape_type = Shape;
  static constexpr std::size_t rank = Shape::rank();
  static constexpr bool flat_shape = A::flat_shape && flat_child_v<sa, Shape>;

  explicit broadcast_node(A a) : a_(std::move(a)) {}

  bool contiguous() const noexcept { return sa::static_size() == 1 || a_.contiguous(); }
  bool unit_rows() const noexcept { return last_const_v<sa> || a_.unit_rows(); }
  template <bool Unit>
  auto row(index_array<rank> const& idx) const noexcept {
    return [ra = a_.template row<Unit>(map_index<sa>(idx))](index_t j) noexcept {
      return ra(broadcasts_last_v<sa, Shape> ? 0 : j);
    };
  }
  bool aliases(memory_region const& m, bool remapped) const noexcept {
    return a_.aliases(m, remapped || !std::is_same_v<sa, Shape>);
  }

 private:
  A a_;
};

}  // namespace pallas::detail
