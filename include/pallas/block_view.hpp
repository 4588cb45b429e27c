// SPDX-License-Identifier: Apache-2.0
#pragma once
// pl::block_view<R>: the whole of a VMEM ref as a block expression, what `ref[pl::ellipsis]`
// (Python's `ref[...]`) returns. Reading it gives a lazy expression of the ref's static
// shape; assigning to it stores:
//
//   o[pl::ellipsis] = x[pl::ellipsis] * 2 + y[pl::ellipsis];   // one pass over x, y and o
//   acc[pl::ellipsis] += pl::dot(x[pl::ellipsis], y[pl::ellipsis],
//                                pl::preferred_element_type<float>);
//   o.at(pl::ds<8>(i))[pl::ellipsis] = pl::zeros<float, pl::shape<8, 128>>();
//
// Assignments: =, +=, -=, *=, /=, %=, &=, |=, ^=, <<=, >>=. `=` needs a value of the ref's
// shape (only scalars broadcast) and dtype (Pallas' rule: convert with pl::astype). `op=`
// broadcasts its value to the ref's shape as numpy does (`acc[pl::ellipsis] *= alpha` with
// alpha of shape (bq, 1) over (bq, bk)) and must keep the ref's dtype.
//
// Gotcha (as in Eigen): a block_view is a view. `auto v = x[pl::ellipsis];` does not copy:
// v reads x's memory whenever it is evaluated. Use `pl::load(x)` or `pl::eval(...)` for a
// value.

#include <type_traits>
#include <utility>

#include <pallas/detail/checked/checked_access.hpp>
#include <pallas/expr/assign.hpp>
#include <pallas/expr/store.hpp>
#include <pallas/expr/expression.hpp>
#include <pallas/memory_space.hpp>
#include <pallas/ref.hpp>

namespace pallas {

namespace detail {

template <class R>
using block_view_base = leaf<std::remove_const_t<typename R::value_type>, typename R::shape_type>;

template <class R>
constexpr bool block_view_ok() {
  static_assert(R::shape_type::is_static,
                "pallas::block_view: a block must have a static shape (slice with pl::ds<N>)");
  return R::shape_type::is_static;
}

}  // namespace detail

/// `ref[pl::ellipsis]` of a VMEM ref: the whole ref as a block expression, read with
/// `x[pl::ellipsis] + 1` and written with `o[pl::ellipsis] = ...`, element by element
/// through the ref's strides. A view: copying it copies no elements.
template <class R>
class block_view : public detail::block_view_base<R> {
  static_assert(R::space == memory_space::vmem,
                "pallas::block_view: only VMEM refs can be read and written as blocks");
  static_assert(detail::block_view_ok<R>());
  using base = detail::block_view_base<R>;
  using element = typename R::value_type;
  static constexpr bool writable = !std::is_const_v<element>;

 public:
  using value_type = std::remove_const_t<element>;        ///< the element type
  using shape_type = typename R::shape_type;              ///< the ref's extents
  using ref_type = R;                                     ///< the ref viewed
  static constexpr std::size_t rank = shape_type::rank();  ///< the number of dimensions

  /// Checked mode: viewing the destination of a copy still in flight is a race, reported
  /// at `where` (the line of `x[pl::ellipsis]`).
  explicit block_view(R const& ref, detail::place where = detail::place::here())
      : base(ref.data(), ref.strides().all()), ref_(ref), where_(where) {
    detail::check_ref_access(ref_, false, "a block read or store (x[pl::ellipsis])", where_);
  }

  /// The ref this view reads and writes.
  R const& ref() const noexcept { return ref_; }

  // Copying a view copies the view; assigning one block_view to another stores elements.
  block_view(block_view const&) = default;  ///< Another view of the same ref.
  /// Stores the other view's elements into this one's (`o[pl::ellipsis] = x[pl::ellipsis]`).
  block_view& operator=(block_view const& other) {
    store<detail::set_assign>(other);
    return *this;
  }

  /// Stores a value: an expression of the ref's shape and dtype, or a scalar.
  template <class V>
    requires(Operand<V> || Scalar<V>)
  block_view& operator=(V&& v) {
    store<detail::set_assign>(std::forward<V>(v));
    return *this;
  }

#define PALLAS_DETAIL_COMPOUND(symbol, op)                                 \
  template <class V>                                                       \
    requires(Operand<V> || Scalar<V>)                                      \
  block_view& operator symbol(V&& v) {                                     \
    store<detail::compound_assign<detail::op>>(std::forward<V>(v));        \
    return *this;                                                          \
  }
  /// @name Compound assignment
  /// @{

  /// `o[pl::ellipsis] += e`: element-wise with an expression that broadcasts to the ref's
  /// shape, or a scalar; the result keeps the ref's dtype.
  PALLAS_DETAIL_COMPOUND(+=, add_op)
  PALLAS_DETAIL_COMPOUND(-=, sub_op)
  PALLAS_DETAIL_COMPOUND(*=, mul_op)
  PALLAS_DETAIL_COMPOUND(/=, div_op)
  PALLAS_DETAIL_COMPOUND(%=, rem_op)
  PALLAS_DETAIL_COMPOUND(&=, bit_and_op)
  PALLAS_DETAIL_COMPOUND(|=, bit_or_op)
  PALLAS_DETAIL_COMPOUND(^=, bit_xor_op)
  PALLAS_DETAIL_COMPOUND(<<=, shift_left_op)
  PALLAS_DETAIL_COMPOUND(>>=, shift_right_op)
  /// @}
#undef PALLAS_DETAIL_COMPOUND

 private:
  template <class AOp, class V>
  void store(V&& v) {
    static_assert(writable, "pallas::block_view: cannot store into a ref of const elements");
    if constexpr (writable) {
      // Checked mode: writing the source of a copy still in flight is a race.
      detail::check_ref_access(ref_, true, "a block store (o[pl::ellipsis] = ...)", where_);
      detail::store<AOp, shape_type>(ref_.data(), this->strides(), std::forward<V>(v));
    }
  }

  R ref_;
  detail::place where_;
};

}  // namespace pallas
