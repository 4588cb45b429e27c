// SPDX-License-Identifier: Apache-2.0
#pragma once
// Shape operations on block values:
//
//   pl::transpose(x)                     x.T (all axes reversed)
//   pl::transpose<1, 0, 2>(x)            jnp.transpose(x, (1, 0, 2))
//   pl::reshape<8, 128>(x)               jnp.reshape(x, (8, 128)); one extent may be -1
//   pl::broadcast_to<8, 128>(x)          jnp.broadcast_to(x, (8, 128))
//   pl::slice(x, i, pl::ds<8>(s), pl::full_extent)
//                                        x[i, s:s+8, :] on a value (the indexers of
//                                        Ref::at; the start of pl::ds may be dynamic)
//   pl::concatenate<Axis>(a, b, ...)     jnp.concatenate([a, b, ...], axis=Axis); Axis 0
//                                        when omitted; dtypes promote
//   pl::roll(x, shift, pl::axis<A>)      jnp.roll(x, shift, axis=A) and pltpu.roll; the
//                                        shift is a run-time integer
//
// Transposes, reshapes and slices of views and blocks move no data: they re-stride the
// view (a transposed view feeds pl::dot directly). Of other expressions, they evaluate the
// expression first. broadcast_to and roll stay lazy. Assigning any of them over the memory
// they read goes through a temporary, so `x[...] = pl::transpose(x[...])` is correct.

#include <array>
#include <cstddef>
#include <type_traits>
#include <utility>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <pallas/dtype.hpp>
#include <pallas/expr/assign.hpp>
#include <pallas/expr/astype.hpp>
#include <pallas/expr/block.hpp>
#include <pallas/expr/broadcast.hpp>
#include <pallas/expr/expression.hpp>
#include <pallas/memory_space.hpp>
#include <pallas/ref.hpp>
#include <pallas/shape.hpp>
#include <pallas/slice.hpp>

namespace pallas {

namespace detail {

/// An expression as a leaf: leaves as they are, anything else evaluated into a block.
template <class E>
auto to_leaf(E&& e) {
  using D = std::remove_cvref_t<E>;
  if constexpr (is_leaf<D>::value)
    return D(std::forward<E>(e));
  else
    return block<typename D::value_type, typename D::shape_type>(std::forward<E>(e)).into_leaf();
}

template <class Seq>
struct all_dyn;
template <std::size_t... K>
struct all_dyn<std::index_sequence<K...>> {
  using type = extents<(static_cast<index_t>(K) * 0 + dyn)...>;
};

template <class S, int... P>
struct permuted_shape {
  static constexpr std::size_t rank = S::rank();
  static constexpr std::array<std::size_t, rank> perm = [] {
    std::array<std::size_t, rank> p{};
    if constexpr (sizeof...(P) == 0) {
      for (std::size_t k = 0; k < rank; ++k) p[k] = rank - 1 - k;
    } else if constexpr (sizeof...(P) == rank) {
      std::array<int, rank> const given{P...};
      for (std::size_t k = 0; k < rank; ++k)
        p[k] = static_cast<std::size_t>(given[k] < 0 ? given[k] + static_cast<int>(rank) : given[k]);
    } else {
      for (std::size_t k = 0; k < rank; ++k) p[k] = k;
    }
    return p;
  }();
  static constexpr std::array<index_t, rank> dims = [] {
    std::array<index_t, rank> d{};
    for (std::size_t k = 0; k < rank; ++k) d[k] = S::static_extent(perm[k]);
    return d;
  }();
  using type = typename extents_from<permuted_shape>::type;
};

template <class S, index_t... D>
struct reshape_target {
  static constexpr index_t known = ((D == -1 ? 1 : D) * ... * index_t{1});
  static constexpr index_t fill = known == 0 ? 0 : S::static_size() / known;
  using type = extents<(D == -1 ? fill : D)...>;
};

template <class Old, class New>
struct reshape_sizes;
template <index_t... A, index_t... B>
struct reshape_sizes<extents<A...>, extents<B...>> {
  static constexpr bool ok = (index_t{1} * ... * A) == (index_t{1} * ... * B);
  static constexpr bool check() {
    static_assert((index_t{1} * ... * A) == (index_t{1} * ... * B),
                  "pallas::reshape: the new shape must have as many elements as the old one "
                  "(old size == new size)");
    return ok;
  }
};

/// roll along axis Axis (normalized) by a run-time shift.
template <std::size_t Axis, class A>
class roll_node : public expr_methods<roll_node<Axis, A>> {
 public:
  using value_type = typename A::value_type;
  using shape_type = typename A::shape_type;
  static constexpr std::size_t rank = shape_type::rank();
  static constexpr bool flat_shape = false;
  static constexpr index_t n = shape_type::static_extent(Axis);

  roll_node(A a, index_t shift) noexcept
      : a_(std::move(a)), shift_(n == 0 ? 0 : ((shift % n) + n) % n) {}

  bool contiguous() const noexcept { return false; }
  bool unit_rows() const noexcept { return a_.unit_rows(); }
  template <bool Unit>
  auto row(index_array<rank> const& idx) const noexcept {
    index_t const s = shift_;
    if constexpr (Axis + 1 == rank) {
      return [ra = a_.template row<Unit>(idx), s](index_t j) noexcept {
        index_t k = j - s;
        if (k < 0) k += n;
        return ra(k);
      };
    } else {
      index_array<rank> src = idx;
      src[Axis] -= s;
      if (src[Axis] < 0) src[Axis] += n;
      return a_.template row<Unit>(src);
    }
  }
  bool aliases(memory_region const& m, bool) const noexcept { return a_.aliases(m, true); }

 private:
  A a_;
  index_t shift_;
};

template <int Axis, class S0, class S, class Seq = std::make_index_sequence<S::rank()>>
struct concat_dims;
template <int Axis, index_t... A, index_t... B, std::size_t... K>
struct concat_dims<Axis, extents<A...>, extents<B...>, std::index_sequence<K...>> {
  static constexpr bool ok = ((static_cast<int>(K) == Axis || A == B) && ...);
  static constexpr bool check() {
    static_assert(((static_cast<int>(K) == Axis || A == B) && ...),
                  "pallas::concatenate: operands must have equal extents except along the axis "
                  "(first operand's extent, this operand's extent)");
    return ok;
  }
};

template <int Axis, class... S>
struct concat_shape {
  using first = std::tuple_element_t<0, std::tuple<S...>>;
  static constexpr std::size_t rank = first::rank();
  static constexpr bool same_rank = ((S::rank() == rank) && ...);
  static constexpr std::size_t axis =
      static_cast<std::size_t>(Axis < 0 ? Axis + static_cast<int>(rank) : Axis);
  static constexpr std::array<index_t, rank> dims = [] {
    std::array<index_t, rank> d{};
    for (std::size_t r = 0; r < rank; ++r) d[r] = first::static_extent(r);
    if constexpr (rank > 0 && (Axis < static_cast<int>(rank) && Axis >= -static_cast<int>(rank)))
      d[axis] = (index_t{0} + ... + (S::rank() > axis ? S::static_extent(axis) : 0));
    return d;
  }();
  using type = typename extents_from<concat_shape>::type;
};

}  // namespace detail

/// jnp.transpose(x, axes): no axes reverses them all (x.T).
template <int... P, Operand X>
auto transpose(X&& x) {
  using E = detail::operand_t<X>;
  using S = typename E::shape_type;
  using T = typename E::value_type;
  constexpr std::size_t rank = S::rank();
  static_assert(sizeof...(P) == 0 || sizeof...(P) == rank,
                "pallas::transpose: the permutation must name every axis once (axes, rank)");
  if constexpr (sizeof...(P) != 0 && sizeof...(P) == rank) detail::axes_check<rank, P...>::check();
  using perm = detail::permuted_shape<S, P...>;
  using NS = typename perm::type;
  auto l = detail::to_leaf(detail::as_operand(std::forward<X>(x)));
  detail::index_array<rank> s{};
  for (std::size_t k = 0; k < rank; ++k) s[k] = l.strides()[perm::perm[k]];
  return detail::leaf<T, NS>(l.data(), s, l.owner());
}

/// jnp.reshape(x, (D...)): row-major; one extent may be -1 (inferred).
template <index_t... D, Operand X>
auto reshape(X&& x) {
  using E = detail::operand_t<X>;
  using S = typename E::shape_type;
  using T = typename E::value_type;
  static_assert(((D >= -1) && ...), "pallas::reshape: extents must be >= 0, or -1 (inferred)");
  static_assert(((D == -1) + ... + 0) <= 1, "pallas::reshape: at most one extent may be -1");
  using NS = typename detail::reshape_target<S, D...>::type;
  if constexpr (!detail::reshape_sizes<S, NS>::ok) {
    detail::reshape_sizes<S, NS>::check();
    return detail::leaf<T, NS>{};
  } else {
    auto l = detail::to_leaf(detail::as_operand(std::forward<X>(x)));
    if (!l.contiguous())
      l = block<T, S>(std::move(l)).into_leaf();
    return detail::leaf<T, NS>(l.data(), detail::row_major<NS>(), l.owner());
  }
}

/// jnp.broadcast_to(x, (D...)): lazy; trailing dimensions align, extents of 1 stretch.
template <index_t... D, Operand X>
auto broadcast_to(X&& x) {
  using E = detail::operand_t<X>;
  using S = typename E::shape_type;
  using NS = extents<D...>;
  static_assert(S::rank() <= NS::rank(),
                "pallas::broadcast_to: the target must have at least the operand's rank "
                "(operand rank, target rank)");
  if constexpr (S::rank() <= NS::rank()) {
    using padded = typename detail::pad_shape<S, NS::rank()>::type;
    detail::broadcast_to_check<padded, NS>::check();
  }
  return detail::broadcast_node<NS, E>(detail::as_operand(std::forward<X>(x)));
}

/// x[indexers...] on a value: the indexers of Ref::at (integers drop a dimension,
/// pl::ds<N>(start) slices with a static size and any start, pl::full_extent keeps a
/// dimension, pl::ellipsis the rest). Checked like Ref::at.
template <Operand X, Indexer... I>
auto slice(X&& x, I const&... indexers) {
  using E = detail::operand_t<X>;
  using S = typename E::shape_type;
  using T = typename E::value_type;
  using St = typename detail::all_dyn<std::make_index_sequence<S::rank()>>::type;
  auto l = detail::to_leaf(detail::as_operand(std::forward<X>(x)));
  Ref<T const, S, memory_space::vmem, St> const whole(l.data(), S{}, St::from_all(l.strides()));
  auto const part = whole.at(indexers...);
  using NS = typename decltype(part)::shape_type;
  return detail::leaf<T, NS>(part.data(), part.strides().all(), l.owner());
}

/// jnp.concatenate([xs...], axis=Axis): dtypes promote; computed now, into a block.
template <int Axis = 0, Operand... X>
  requires(sizeof...(X) >= 1)
auto concatenate(X&&... xs) {
  namespace mp = boost::mp11;
  using types = mp::mp_list<typename detail::operand_t<X>::value_type...>;
  using T = mp::mp_fold<mp::mp_rest<types>, mp::mp_first<types>, promote_t>;
  using CS = detail::concat_shape<Axis, typename detail::operand_t<X>::shape_type...>;
  using first = typename CS::first;
  constexpr std::size_t rank = CS::rank;
  static_assert(CS::same_rank, "pallas::concatenate: operands must have the same rank");
  if constexpr (CS::same_rank) {
    using axes = detail::axes_check<rank, Axis>;
    axes::check();
    if constexpr (axes::ok) {
      constexpr bool dims_ok =
          (detail::concat_dims<static_cast<int>(CS::axis), first,
                               typename detail::operand_t<X>::shape_type>::ok && ...);
      if constexpr (!dims_ok)
        (detail::concat_dims<static_cast<int>(CS::axis), first,
                             typename detail::operand_t<X>::shape_type>::check() && ...);
    }
  }
  using NS = typename CS::type;
  block<T, NS> out;
  if constexpr (CS::same_rank && rank > 0) {
    constexpr auto os = detail::row_major<NS>();
    index_t offset = 0;
    auto put = [&](auto&& x) {
      using Sk = typename detail::operand_t<decltype(x)>::shape_type;
      detail::walk<detail::set_assign, Sk>(out.data() + offset * os[CS::axis], os,
                                           pallas::astype<T>(std::forward<decltype(x)>(x)));
      offset += Sk::static_extent(CS::axis);
    };
    (put(std::forward<X>(xs)), ...);
  }
  return out;
}

/// jnp.roll(x, shift, axis=A) / pltpu.roll(x, shift, A): lazy.
template <Operand X, int A>
auto roll(X&& x, index_t shift, axis_t<A>) {
  using E = detail::operand_t<X>;
  using S = typename E::shape_type;
  constexpr std::size_t rank = S::rank();
  using check = detail::axes_check<rank, A>;
  check::check();
  constexpr std::size_t ax =
      check::ok ? static_cast<std::size_t>(A < 0 ? A + static_cast<int>(rank) : A) : 0;
  return detail::roll_node<ax, E>(detail::as_operand(std::forward<X>(x)), shift);
}

}  // namespace pallas
