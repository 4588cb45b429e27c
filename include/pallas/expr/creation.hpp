// SPDX-License-Identifier: Apache-2.0
#pragma once
// Creating blocks (lazy; nothing is stored until assigned or evaluated):
//
//   pl::full<float, pl::shape<8, 128>>(1.5f)      jnp.full((8, 128), 1.5, jnp.float32)
//   pl::full<pl::shape<8, 128>>(1.5f)             dtype of the value (weak: f32 / i32 / bool)
//   pl::zeros<T, Shape>(), pl::ones<T, Shape>()   jnp.zeros / jnp.ones
//   pl::full_like(x, v), pl::zeros_like(x), pl::ones_like(x)
//                                                 x a ref (any memory space) or an
//                                                 expression; pl::full_like<U>(x, v) sets the
//                                                 dtype
//   pl::arange<float, 128>()                      jnp.arange(128, dtype=jnp.float32)
//   pl::arange<T, Start, Stop, Step>()            jnp.arange(start, stop, step, dtype=T)
//   pl::arange<128>()                             jnp.arange(128) (int32)
//   pl::iota<T, Shape>(axis)                      lax.broadcasted_iota(T, shape, axis); the
//                                                 axis is an int (checked at run time) or
//                                                 pl::axis<A> (checked at compile time)

#include <cstddef>
#include <type_traits>

#include <pallas/dtype.hpp>
#include <pallas/error.hpp>
#include <pallas/expr/block.hpp>
#include <pallas/expr/expression.hpp>
#include <pallas/ref.hpp>
#include <pallas/shape.hpp>

namespace pallas {

namespace detail {

/// A scalar (weak or strong) as dtype T, with astype semantics.
template <class T, class V>
constexpr T scalar_as(V v) noexcept {
  if constexpr (WeakScalar<V>)
    return from_scalar<T>(v);
  else
    return convert<T>(v);
}

/// start + step * (index along `axis`), as dtype T.
template <class T, class Shape>
class iota_node : public expr_methods<iota_node<T, Shape>> {
  static_assert(Dtype<T>, "pallas::iota: the dtype must be a pallas dtype");

 public:
  using value_type = T;
  using shape_type = Shape;
  static constexpr std::size_t rank = Shape::rank();
  static constexpr bool flat_shape = rank <= 1;

  iota_node(std::size_t axis, index_t start, index_t step) noexcept
      : axis_(axis), start_(start), step_(step) {}

  constexpr bool contiguous() const noexcept { return true; }
  constexpr bool unit_rows() const noexcept { return true; }
  template <bool Unit>
  auto row(index_array<rank> const& idx) const noexcept {
    bool const along = axis_ + 1 == rank;
    index_t coordinate = 0;
    for (std::size_t r = 0; r + 1 < rank; ++r)
      if (r == axis_) coordinate = idx[r];
    index_t const base = start_ + step_ * coordinate;
    index_t const mul = along ? step_ : 0;
    return [base, mul](index_t j) noexcept {
      return from_scalar<T>(static_cast<index_t>(static_cast<std::uint64_t>(base) +
                                                 static_cast<std::uint64_t>(mul * j)));
    };
  }
  constexpr bool aliases(memory_region const&, bool) const noexcept { return false; }

 private:
  std::size_t axis_;
  index_t start_;
  index_t step_;
};

template <class X>
struct like_traits {
  using value_type = typename X::value_type;
  using shape_type = typename X::shape_type;
};

}  // namespace detail

/// jnp.full(Shape, value, dtype=T).
template <class T, Extents S, class V>
  requires Scalar<V>
auto full(V value) {
  static_assert(Dtype<T>, "pallas::full: the dtype must be a pallas dtype");
  static_assert(S::is_static, "pallas::full: the shape must be static");
  return detail::constant<T, S>(detail::scalar_as<T>(value));
}

/// jnp.full(Shape, value): the dtype of the value (a C++ scalar: bool, int32 or float32).
template <Extents S, class V>
  requires Scalar<V>
auto full(V value) {
  return full<detail::dtype_of_t<V>, S>(value);
}

/// jnp.zeros(Shape, dtype=T).
template <class T, Extents S>
auto zeros() {
  return full<T, S>(0);
}

/// jnp.ones(Shape, dtype=T).
template <class T, Extents S>
auto ones() {
  return full<T, S>(1);
}

/// jnp.full_like(x, value[, dtype=U]): x is a ref (of any memory space) or an expression.
template <class U = void, class X, class V>
  requires(AnyRef<X> || Operand<X>) && Scalar<V>
auto full_like(X const& x, V value) {
  (void)x;
  using D = std::remove_cvref_t<X>;
  using T = std::conditional_t<std::is_void_v<U>, std::remove_const_t<typename D::value_type>, U>;
  static_assert(D::shape_type::is_static, "pallas::full_like: the shape must be static");
  return full<T, typename D::shape_type>(value);
}

/// jnp.zeros_like(x[, dtype=U]).
template <class U = void, class X>
  requires AnyRef<X> || Operand<X>
auto zeros_like(X const& x) {
  return full_like<U>(x, 0);
}

/// jnp.ones_like(x[, dtype=U]).
template <class U = void, class X>
  requires AnyRef<X> || Operand<X>
auto ones_like(X const& x) {
  return full_like<U>(x, 1);
}

/// lax.broadcasted_iota(T, Shape, axis): the index along `axis` (an int, negative from the
/// end; out of range throws pallas::index_error).
template <class T, Extents S>
auto iota(int axis) {
  static_assert(S::is_static, "pallas::iota: the shape must be static");
  int const rank = static_cast<int>(S::rank());
  if (axis < -rank || axis >= rank)
    detail::fail<index_error>("pallas::iota: axis ", axis, " is out of range for rank ", rank);
  return detail::iota_node<T, S>(static_cast<std::size_t>(axis < 0 ? axis + rank : axis), 0, 1);
}

/// lax.broadcasted_iota(T, Shape, A), the axis checked at compile time.
template <class T, Extents S, int A>
auto iota(axis_t<A>) {
  static_assert(S::is_static, "pallas::iota: the shape must be static");
  constexpr int rank = static_cast<int>(S::rank());
  detail::axes_check<S::rank(), A>::check();
  return detail::iota_node<T, S>(detail::axes_check<S::rank(), A>::ok ? static_cast<std::size_t>(A < 0 ? A + rank : A) : 0, 0, 1);
}

/// jnp.arange(N, dtype=T).
template <class T, index_t N>
auto arange() {
  static_assert(N >= 0, "pallas::arange: the length must be >= 0");
  return detail::iota_node<T, shape<(N >= 0 ? N : 0)>>(0, 0, 1);
}

/// jnp.arange(N) (int32).
template <index_t N>
auto arange() {
  return arange<std::int32_t, N>();
}

/// jnp.arange(Start, Stop, Step, dtype=T).
template <class T, index_t Start, index_t Stop, index_t Step = 1>
auto arange() {
  static_assert(Step != 0, "pallas::arange: the step must not be 0");
  constexpr index_t span = Stop - Start;
  constexpr index_t n = Step == 0 ? 0
                        : (span > 0) == (Step > 0) && span != 0
                            ? (span + Step - (Step > 0 ? 1 : -1)) / Step
                            : 0;
  return detail::iota_node<T, shape<n>>(0, Start, Step);
}

}  // namespace pallas
