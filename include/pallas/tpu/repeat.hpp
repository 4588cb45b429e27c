// SPDX-License-Identifier: Apache-2.0
#pragma once
// pltpu::repeat(x, pl::c<N>, pl::axis<A>): `pltpu.repeat(x, N, A)`, x repeated N times along
// axis A, as a whole: the axis' extent becomes N * extent and element i reads element
// i % extent (jnp.tile along one axis; not jnp.repeat, which repeats each element). Lazy:
// nothing is copied until the result is assigned or evaluated. N is static (it fixes the
// result's shape); a negative A counts from the end.

#include <cstddef>
#include <utility>

#include <pallas/expr/block.hpp>
#include <pallas/expr/expression.hpp>
#include <pallas/shape.hpp>

namespace pallas {
namespace detail {

template <class S, std::size_t Axis, index_t N, class Seq = std::make_index_sequence<S::rank()>>
struct repeated_shape;
template <class S, std::size_t Axis, index_t N, std::size_t... K>
struct repeated_shape<S, Axis, N, std::index_sequence<K...>> {
  using type = shape<(K == Axis ? N * S::static_extent(K) : S::static_extent(K))...>;
};

/// x tiled N times along Axis (normalized).
template <std::size_t Axis, index_t N, class A>
class repeat_node : public expr_methods<repeat_node<Axis, N, A>> {
  using sa = typename A::shape_type;
  static constexpr index_t n = sa::static_extent(Axis);

 public:
  using value_type = typename A::value_type;
  using shape_type = typename repeated_shape<sa, Axis, N>::type;
  static constexpr std::size_t rank = shape_type::rank();
  static constexpr bool flat_shape = false;

  explicit repeat_node(A a) : a_(std::move(a)) {}

  bool contiguous() const noexcept { return false; }
  bool unit_rows() const noexcept { return a_.unit_rows(); }
  template <bool Unit>
  auto row(index_array<rank> const& idx) const noexcept {
    if constexpr (Axis + 1 == rank) {
      return [ra = a_.template row<Unit>(idx)](index_t j) noexcept { return ra(n == 0 ? 0 : j % n); };
    } else {
      index_array<rank> src = idx;
      src[Axis] = n == 0 ? 0 : src[Axis] % n;
      return a_.template row<Unit>(src);
    }
  }
  bool aliases(memory_region const& m, bool) const noexcept { return a_.aliases(m, true); }

 private:
  A a_;
};

}  // namespace detail

namespace tpu {

/// `pltpu.repeat(x, repeats, axis)`: x tiled `repeats` times along `axis`.
template <Operand X, index_t N, int A>
auto repeat(X&& x, c_t<N>, axis_t<A>) {
  using E = pallas::detail::operand_t<X>;
  using S = typename E::shape_type;
  static_assert(N >= 0, "pallas::tpu::repeat: the number of repeats must be >= 0");
  constexpr bool axis_ok = pallas::detail::axes_check<S::rank(), A>::check();
  if constexpr (!axis_ok) {
    return pallas::detail::as_operand(std::forward<X>(x));  // the axis rule said why
  } else {
    constexpr auto axis = static_cast<std::size_t>(A < 0 ? A + static_cast<int>(S::rank()) : A);
    return pallas::detail::repeat_node<axis, (N >= 0 ? N : 0), E>(
        pallas::detail::as_operand(std::forward<X>(x)));
  }
}

}  // namespace tpu
}  // namespace pallas
