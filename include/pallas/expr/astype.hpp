// SPDX-License-Identifier: Apache-2.0
#pragma once
// pl::astype<U>(x) and x.astype<U>(): jnp `x.astype(U)`, lazy, elementwise, between every
// pair of dtypes (pallas::convert): to bfloat16/float16 rounds to nearest even; float to
// integer truncates toward zero (NaN -> 0, out of range saturates); integer to integer
// wraps; to bool is `x != 0`.

#include <type_traits>
#include <utility>

#include <pallas/dtype.hpp>
#include <pallas/expr/block.hpp>
#include <pallas/expr/elementwise.hpp>
#include <pallas/expr/expression.hpp>
#include <pallas/expr/ops.hpp>

namespace pallas {

/// jnp `x.astype(U)`; a scalar gives a rank-0 expression.
template <class U, class X>
  requires Operand<X> || Scalar<X>
auto astype(X&& x) {
  static_assert(Dtype<U>, "pallas::astype: the target must be a pallas dtype (float, "
                          "pallas::bfloat16, pallas::float16, std::int8_t, std::int16_t, "
                          "std::int32_t, std::uint32_t, bool)");
  if constexpr (WeakScalar<X>) {
    using T = detail::default_dtype_t<std::remove_cvref_t<X>>;
    return detail::unary<detail::cast_op<U>, detail::scalar<T>>(
        detail::scalar<T>(detail::from_scalar<T>(x)));
  } else {
    using E = detail::operand_t<X>;
    return detail::unary<detail::cast_op<U>, E>(detail::as_operand(std::forward<X>(x)));
  }
}

template <class D>
template <class U>
auto detail::expr_methods<D>::astype() const {
  return pallas::astype<U>(self());
}

}  // namespace pallas
