// SPDX-License-Identifier: Apache-2.0
#pragma once
// How values become operands of block expressions (views and blocks as leaves, scalars as
// constants), and the rules of a store (`block = value`, `ref[...] = value`, `block op=
// value`), shared by pl::block (block.hpp) and pl::block_view (block_view.hpp).

#include <array>
#include <cstddef>
#include <type_traits>
#include <utility>

#include <pallas/config.hpp>
#include <pallas/dtype.hpp>
#include <pallas/error.hpp>
#include <pallas/expr/assign.hpp>
#include <pallas/expr/broadcast.hpp>
#include <pallas/expr/expression.hpp>
#include <pallas/shape.hpp>

namespace pallas {

namespace detail {

template <class T>
struct is_block : std::false_type {};
template <class T, class S>
struct is_block<block<T, S>> : std::true_type {};

/// Whether D is a view type built on a leaf (a block_view), seen as its leaf.
template <class D>
concept leaf_derived = requires {
  typename D::value_type;
  typename D::shape_type;
} && std::derived_from<D, leaf<typename D::value_type, typename D::shape_type>> &&
                       !is_leaf<D>::value;

/// A value as an operand of an expression node: views and lvalue blocks become leaves
/// that read their memory; rvalue blocks and deferred products become leaves that own
/// their memory; strong scalars become rank-0 constants; nodes are kept by value.
template <class X>
auto as_operand(X&& x) {
  using D = std::remove_cvref_t<X>;
  if constexpr (StrongScalar<D>) {
    return scalar<D>(x);
  } else if constexpr (is_block<D>::value) {
    if constexpr (std::is_rvalue_reference_v<X&&> && !std::is_const_v<std::remove_reference_t<X>>)
      return std::move(x).into_leaf();
    else
      return x.view();
  } else if constexpr (std::derived_from<D, deferred_marker>) {
    return x.eval().into_leaf();
  } else if constexpr (leaf_derived<D>) {
    return leaf<typename D::value_type, typename D::shape_type>(x);
  } else {
    return D(std::forward<X>(x));
  }
}

template <class X>
using operand_t = decltype(as_operand(std::declval<X>()));

/// The dtype of an operand or scalar (a weak scalar on its own: its default dtype).
template <class D>
struct dtype_of {
  using type = default_dtype_t<D>;
};
template <class D>
  requires Operand<D>
struct dtype_of<D> {
  using type = typename D::value_type;
};
template <class D>
  requires StrongScalar<D>
struct dtype_of<D> {
  using type = D;
};
template <class X>
using dtype_of_t = typename dtype_of<std::remove_cvref_t<X>>::type;

// ---------------------------------------------------------------------------------------
// stores

template <class VS, class S>
struct same_shape;
template <index_t... A, index_t... B>
struct same_shape<extents<A...>, extents<B...>> {
  static constexpr bool value = std::is_same_v<extents<A...>, extents<B...>>;
  static constexpr bool check() {
    static_assert(std::is_same_v<extents<A...>, extents<B...>>,
                  "pallas::store: the stored value must have the block's shape (value shape, "
                  "block shape); stores do not broadcast");
    return value;
  }
};

/// `dst (shape S) AOp= value`, with the rules of a Pallas store: `=` needs a value of the
/// block's shape (or a scalar) and dtype (a weak C++ scalar takes it when it is of the same
/// kind); `op=` broadcasts its value to the block's shape as numpy's in-place operators do
/// (`acc op= v` with v of shape (bq, 1) over (bq, bk)) and must keep the block's dtype.
template <class AOp, class S, class T, class V>
void store(T* dst, index_array<S::rank()> const& dstr, V&& value) {
  using D = std::remove_cvref_t<V>;
  constexpr bool is_set = std::is_same_v<AOp, set_assign>;
  if constexpr (WeakScalar<D>) {
    using W = weak_result_t<T, D>;
    static_assert(std::is_same_v<W, T> || !is_set,
                  "pallas::store: a floating-point scalar cannot be stored into an integer or "
                  "bool block (use pl::astype)");
    if constexpr (std::is_same_v<W, T> || !is_set) {
      using C = std::conditional_t<is_set, T, W>;
      static_assert(is_set || std::is_same_v<promote_t<T, C>, T>,
                    "pallas::store: `block op= value` must keep the block's dtype");
      if constexpr (is_set || std::is_same_v<promote_t<T, C>, T>)
        walk<AOp, S>(dst, dstr, constant<C, S>(from_scalar<C>(value)));
    }
  } else if constexpr (StrongScalar<D>) {
    static_assert(is_set ? std::is_same_v<D, T> : std::is_same_v<promote_t<T, D>, T>,
                  "pallas::store: the value's dtype must be the block's dtype (convert it with "
                  "pl::astype<T>(value))");
    if constexpr (is_set ? std::is_same_v<D, T> : std::is_same_v<promote_t<T, D>, T>)
      walk<AOp, S>(dst, dstr, constant<D, S>(value));
  } else {
    static_assert(Operand<D>, "pallas::store: the value must be a block expression or a scalar");
    if constexpr (Operand<D>) {
      using VS = typename D::shape_type;
      using VT = typename D::value_type;
      constexpr bool same = same_shape<VS, S>::value;
      if constexpr (is_set && !same) {
        same_shape<VS, S>::check();
      } else if constexpr (!same && !compound_broadcastable_v<VS, S>) {
        compound_broadcast_of<VS, S>::check();
      } else {
        static_assert(is_set ? std::is_same_v<VT, T> : std::is_same_v<promote_t<T, VT>, T>,
                      "pallas::store: the value's dtype must be the block's dtype (convert it "
                      "with pl::astype<T>(value)); `block op= value` must keep the block's "
                      "dtype");
        if constexpr (is_set ? std::is_same_v<VT, T> : std::is_same_v<promote_t<T, VT>, T>) {
          if constexpr (!same)  // `acc op= v` with v of shape (bq, 1), (1, bk), ...
            assign_expression<AOp, S>(
                dst, dstr, broadcast_node<S, operand_t<V>>(as_operand(std::forward<V>(value))));
          else if constexpr (std::derived_from<D, deferred_marker>)
            value.template store_into<AOp, S>(dst, dstr);
          else
            assign_expression<AOp, S>(dst, dstr, as_operand(std::forward<V>(value)));
        }
      }
    }
  }
}

}  // namespace detail

}  // namespace pallas
