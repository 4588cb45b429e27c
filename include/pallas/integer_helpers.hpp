// SPDX-License-Identifier: Apache-2.0
#pragma once
// Integer helpers of Pallas kernels and index maps:
//
//   pl::cdiv(a, b)             pl.cdiv: ceil(a / b) (`pl::cdiv(pl::c<300>, pl::c<128>)` is
//                              pl::c<3>: static in, static out)
//   pl::align_to(x, a)         pl.align_to: x rounded up to a multiple of a
//   pl::next_power_of_2(x)     pl.next_power_of_2: the smallest power of 2 >= x (1 for 0)
//   pl::multiple_of(x, n)      pl.multiple_of: a hint that x is a multiple of n; returns x.
//                              Checked mode verifies it and throws pallas::error otherwise.
//
// All are constexpr (`pl::grid<pl::cdiv(M, 128)>`); a division by zero, a negative
// next_power_of_2 argument or, in checked mode, a broken multiple_of hint throws (and does
// not compile in a constant expression).

#include <type_traits>

#include <pallas/config.hpp>
#include <pallas/error.hpp>
#include <pallas/shape.hpp>

namespace pallas {

namespace detail {
constexpr index_t ceil_div(index_t a, index_t b) {
  if (b == 0) fail("pallas::cdiv: division by zero (", a, " / 0)");
  index_t q = a / b;
  if (a % b != 0 && ((a < 0) == (b < 0))) ++q;  // C++ truncates toward zero
  return q;
}
}  // namespace detail

/// `pl.cdiv(a, b)`: the ceiling of a / b.
template <Integer A, Integer B>
constexpr auto cdiv(A a, B b) {
  if constexpr (StaticInt<A> && StaticInt<B>)
    return c<detail::ceil_div(A::value, B::value)>;
  else
    return detail::ceil_div(static_cast<index_t>(a), static_cast<index_t>(b));
}

/// `pl.align_to(x, alignment)`: the smallest multiple of alignment that is >= x.
template <Integer X, Integer A>
constexpr auto align_to(X x, A alignment) {
  if constexpr (StaticInt<X> && StaticInt<A>)
    return c<detail::ceil_div(X::value, A::value) * A::value>;
  else
    return detail::ceil_div(static_cast<index_t>(x), static_cast<index_t>(alignment)) *
           static_cast<index_t>(alignment);
}

/// `pl.next_power_of_2(x)`: the smallest power of 2 that is >= x (1 for x == 0).
constexpr index_t next_power_of_2(index_t x) {
  if (x < 0) detail::fail("pallas::next_power_of_2: the argument must be >= 0, got ", x);
  index_t p = 1;
  while (p < x) p *= 2;
  return p;
}

/// `pl.multiple_of(x, n)`: x, with the promise that it is a multiple of n (Mosaic uses it
/// to prove alignment). Checked mode verifies the promise.
template <Integer X>
constexpr X multiple_of(X x, index_t n) {
  if constexpr (checked_mode) {
    if (n <= 0) detail::fail("pallas::multiple_of: the multiple must be > 0, got ", n);
    if (static_cast<index_t>(x) % n != 0)
      detail::fail("pallas::multiple_of: ", static_cast<index_t>(x), " is not a multiple of ", n);
  }
  return x;
}

}  // namespace pallas
