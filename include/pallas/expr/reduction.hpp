// SPDX-License-Identifier: Apache-2.0
#pragma once
// Reductions, computed now into a pl::block (like jnp, they are values):
//
//   pl::sum(x)                           jnp.sum(x): all axes, a rank-0 block
//   pl::sum(x, pl::axis<1>)              jnp.sum(x, axis=1)
//   pl::sum(x, pl::axis<-1>, pl::keepdims)  jnp.sum(x, axis=-1, keepdims=True)
//   pl::sum(x, pl::axis<0, 1>)           jnp.sum(x, axis=(0, 1))
//   pl::max, pl::min, pl::prod, pl::mean, pl::any, pl::all     the same forms
//   pl::argmax(x[, pl::axis<A>][, pl::keepdims]), pl::argmin   int32 indices (no axis: of
//                                        the flattened block)
//
// dtypes as jnp: sum and prod of bool, int8, int16 give int32 (uint32 stays uint32; integer
// sums wrap); bfloat16/float16 sums accumulate in float and round once; max/min keep the
// dtype and propagate NaN; mean gives float32 for integers; argmax/argmin take the first
// maximal/minimal element, NaN counting as maximal and minimal (as numpy).

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

#include <pallas/dtype.hpp>
#include <pallas/expr/block.hpp>
#include <pallas/expr/expression.hpp>
#include <pallas/expr/ops.hpp>

namespace pallas {

namespace detail {

/// The shape of a reduction of S over the axes A... (all axes when none), with or
/// without the reduced dimensions kept as 1.
template <class S, bool Keep, int... A>
struct reduced_shape {
  using axes = axes_check<S::rank(), A...>;
  static constexpr bool reduced(std::size_t r) noexcept {
    return sizeof...(A) == 0 || axes::contains(r);
  }
  static constexpr std::size_t count() noexcept {
    std::size_t n = 0;
    for (std::size_t r = 0; r < S::rank(); ++r) n += reduced(r);
    return n;
  }
  static constexpr std::size_t out_rank = Keep ? S::rank() : S::rank() - count();
  static constexpr std::array<index_t, out_rank> dims = [] {
    std::array<index_t, out_rank> d{};
    std::size_t k = 0;
    for (std::size_t r = 0; r < S::rank(); ++r) {
      if (!reduced(r))
        d[k++] = S::static_extent(r);
      else if (Keep)
        d[k++] = 1;
    }
    return d;
  }();
  using type = typename extents_from<reduced_shape>::type;
  /// Strides into the reduced (keepdims) result for each input dimension: 0 on reduced
  /// dimensions.
  static constexpr index_array<S::rank()> out_strides = [] {
    index_array<S::rank()> s{};
    index_t running = 1;
    for (std::size_t r = S::rank(); r-- > 0;) {
      if (reduced(r)) {
        s[r] = 0;
      } else {
        s[r] = running;
        running *= S::static_extent(r);
      }
    }
    return s;
  }();
  static constexpr index_t out_size = [] {
    index_t n = 1;
    for (std::size_t r = 0; r < S::rank(); ++r)
      if (!reduced(r)) n *= S::static_extent(r);
    return n;
  }();
};

/// Calls f(idx, row) for each row of e (row: j -> value), with unit-stride rows when the
/// leaves allow it.
template <class E, class F>
void for_each_row(E const& e, F&& f) {
  using S = typename E::shape_type;
  constexpr std::size_t R = S::rank();
  if constexpr (S::static_size() != 0) {
    auto run = [&](auto unit) {
      index_array<R> idx{};
      for (index_t o = 0; o < row_count_v<S>; ++o) {
        f(idx, e.template row<decltype(unit)::value>(idx));
        if constexpr (R > 0) next_row<S>(idx);
      }
    };
    if (e.unit_rows())
      run(std::true_type{});
    else
      run(std::false_type{});
  }
}

template <class T>
using sum_result_t = std::conditional_t<
    std::is_same_v<T, bool> || std::is_same_v<T, std::int8_t> || std::is_same_v<T, std::int16_t>,
    std::int32_t, T>;

/// sum: float accumulation for floats, wrapping uint32 for integers.
struct sum_reduction {
  template <class T>
  using acc_t = std::conditional_t<is_floating_v<T>, float, std::uint32_t>;
  template <class T>
  using result_t = sum_result_t<T>;
  template <class T>
  static constexpr acc_t<T> identity() noexcept {
    return acc_t<T>{0};
  }
  template <class T>
  static constexpr acc_t<T> lift(T v) noexcept {
    if constexpr (is_floating_v<T>)
      return static_cast<float>(v);
    else
      return u32(v);
  }
  template <class A>
  static constexpr A combine(A a, A b) noexcept {
    return a + b;
  }
  template <class T>
  static constexpr result_t<T> finish(acc_t<T> a, index_t) noexcept {
    if constexpr (is_floating_v<T>)
      return convert<result_t<T>>(a);
    else
      return wrap<result_t<T>>(a);
  }
  static constexpr bool blocked = true;  // independent partial sums along a row
  static constexpr bool nan_aside = false;
};

struct prod_reduction : sum_reduction {
  template <class T>
  static constexpr sum_reduction::acc_t<T> identity() noexcept {
    return sum_reduction::acc_t<T>{1};
  }
  template <class A>
  static constexpr A combine(A a, A b) noexcept {
    return a * b;
  }
  static constexpr bool blocked = false;
};

/// mean: the float sum divided by the count; float32 for integers and bool.
struct mean_reduction : sum_reduction {
  template <class T>
  using acc_t = float;
  template <class T>
  using result_t = floating_t<T>;
  template <class T>
  static constexpr float identity() noexcept {
    return 0.0f;
  }
  template <class T>
  static constexpr float lift(T v) noexcept {
    return convert<float>(v);
  }
  template <class T>
  static constexpr result_t<T> finish(float a, index_t count) noexcept {
    return convert<result_t<T>>(a / static_cast<float>(count));
  }
};

/// max / min: in the dtype (float for the 16-bit floats), NaN-propagating.
template <class Op, bool Max>
struct extreme_reduction {
  template <class T>
  using acc_t = std::conditional_t<is_half_v<T>, float, T>;
  template <class T>
  using result_t = T;
  template <class T>
  static constexpr acc_t<T> identity() noexcept {
    using A = acc_t<T>;
    if constexpr (std::numeric_limits<A>::has_infinity)
      return Max ? -std::numeric_limits<A>::infinity() : std::numeric_limits<A>::infinity();
    else
      return Max ? std::numeric_limits<A>::lowest() : std::numeric_limits<A>::max();
  }
  template <class T>
  static constexpr acc_t<T> lift(T v) noexcept {
    return static_cast<acc_t<T>>(v);
  }
  template <class A>
  static constexpr A combine(A a, A b) noexcept {
    return Op::apply(a, b);
  }
  template <class T>
  static constexpr T finish(acc_t<T> a, index_t) noexcept {
    return convert<T>(a);
  }
  // Lanes are exact here (max and min are associative, NaN stays NaN in any order); only
  // the sign of a zero result may differ, as XLA leaves it unspecified.
  static constexpr bool blocked = true;
  static constexpr bool nan_aside = true;
  /// One vmaxps / vminps: max or min of two non-NaN values (the lanes track NaN aside).
  static constexpr float step_ignoring_nan(float acc, float v) noexcept {
    return Max ? (v > acc ? v : acc) : (v < acc ? v : acc);
  }
};
using max_reduction = extreme_reduction<max_op, true>;
using min_reduction = extreme_reduction<min_op, false>;

/// any / all: logical, bool.
template <bool All>
struct logical_reduction {
  template <class T>
  using acc_t = bool;
  template <class T>
  using result_t = bool;
  template <class T>
  static constexpr bool identity() noexcept {
    return All;
  }
  template <class T>
  static constexpr bool lift(T v) noexcept {
    return convert<bool>(v);
  }
  static constexpr bool combine(bool a, bool b) noexcept { return All ? (a && b) : (a || b); }
  template <class T>
  static constexpr bool finish(bool a, index_t) noexcept {
    return a;
  }
  static constexpr bool blocked = false;
};

template <class T>
struct is_axis : std::false_type {};
template <int... A>
struct is_axis<axis_t<A...>> : std::true_type {};

template <class T>
concept ReduceOption = std::is_same_v<T, keepdims_t> || is_axis<T>::value;

template <class... Opts>
struct parse_reduce_options {
  static constexpr bool keep = (std::is_same_v<Opts, keepdims_t> || ...);
  template <class S>
  using shape = reduced_shape<S, keep>;
};
template <int... A, class... Rest>
struct parse_reduce_options<axis_t<A...>, Rest...> {
  static constexpr bool keep = (std::is_same_v<Rest, keepdims_t> || ...);
  template <class S>
  using shape = reduced_shape<S, keep, A...>;
};

/// (), (axis), (keepdims) or (axis, keepdims).
template <class... Opts>
struct valid_reduce_options : std::bool_constant<(sizeof...(Opts) <= 1)> {};
template <class A, class K>
struct valid_reduce_options<A, K>
    : std::bool_constant<is_axis<A>::value && std::is_same_v<K, keepdims_t>> {};
template <class... Opts>
inline constexpr bool valid_reduce_options_v = valid_reduce_options<Opts...>::value;

/// The reduction of e (an expression) by policy Red, into a block of the reduced shape.
template <class Red, class Shape, class E>
auto reduce(E const& e) {
  using S = typename E::shape_type;
  using T = typename E::value_type;
  using A = typename Red::template acc_t<T>;
  using out_shape = typename Shape::type;
  using result = typename Red::template result_t<T>;
  constexpr std::size_t R = S::rank();
  constexpr index_t reduced_count = Shape::out_size == 0 ? 0 : S::static_size() / Shape::out_size;

  block_storage<A> acc = allocate_block<A>(Shape::out_size);
  for (index_t i = 0; i < Shape::out_size; ++i) acc[i] = Red::template identity<T>();
  constexpr auto os = Shape::out_strides;
  constexpr index_t length = row_length_v<S>;
  constexpr bool last_reduced = R == 0 || Shape::reduced(R - 1);
  for_each_row(e, [&](index_array<R> const& idx, auto const& row) {
    index_t off = 0;
    for (std::size_t r = 0; r + 1 < R; ++r) off += idx[r] * os[r];
    if constexpr (last_reduced) {
      A a = acc[off];
      if constexpr (Red::blocked && std::is_same_v<A, float> && length >= 32) {
        constexpr index_t lanes = 16;
        constexpr index_t whole = length / lanes * lanes;
        // Independent lanes: the compiler vectorizes across them (one chain per lane), which
        // it cannot do for one serial chain of float sums. A NaN-propagating max would still
        // branch per element, so its lanes use the branch-free step and note NaNs aside.
        float part[lanes];
        bool nan[lanes] = {};
        auto step = [&](index_t k, float v) {
          if constexpr (Red::nan_aside) {
            part[k] = Red::step_ignoring_nan(part[k], v);
            nan[k] |= v != v;
          } else {
            part[k] = Red::combine(part[k], v);
          }
        };
        for (index_t k = 0; k < lanes; ++k) part[k] = Red::template identity<T>();
        for (index_t j = 0; j < whole; j += lanes)
          for (index_t k = 0; k < lanes; ++k) step(k, Red::lift(row(j + k)));
        if constexpr (whole < length)
          for (index_t j = whole; j < length; ++j) step(j - whole, Red::lift(row(j)));
        bool any_nan = false;
        for (index_t k = 0; k < lanes; ++k) a = Red::combine(a, part[k]), any_nan |= nan[k];
        if (any_nan) a = std::numeric_limits<float>::quiet_NaN();
      } else {
        for (index_t j = 0; j < length; ++j) a = Red::combine(a, Red::lift(row(j)));
      }
      acc[off] = a;
    } else {
      A* out = acc.get() + off;
      for (index_t j = 0; j < length; ++j) out[j] = Red::combine(out[j], Red::lift(row(j)));
    }
  });
  block<result, out_shape> out;
  for (index_t i = 0; i < Shape::out_size; ++i)
    out.data()[i] = Red::template finish<T>(acc[i], reduced_count);
  return out;
}

template <class Red, class X, class... Opts>
auto reduce_entry(X&& x, Opts...) {
  static_assert(valid_reduce_options_v<Opts...>,
                "pallas::reduce: options are pl::axis<...> then pl::keepdims");
  using E = operand_t<X>;
  using opts = parse_reduce_options<Opts...>;
  using Shape = typename opts::template shape<typename E::shape_type>;
  if constexpr (!Shape::axes::ok) {
    Shape::axes::check();
    return block<typename Red::template result_t<typename E::value_type>, shape<>>{};
  } else {
    return reduce<Red, Shape>(as_operand(std::forward<X>(x)));
  }
}

/// argmax / argmin over one axis (or all, flattened): int32 indices.
template <bool Max, class Shape, class E>
auto arg_reduce(E const& e) {
  using S = typename E::shape_type;
  using T = typename E::value_type;
  using A = std::conditional_t<is_half_v<T>, float, T>;
  using out_shape = typename Shape::type;
  constexpr std::size_t R = S::rank();
  constexpr bool all_axes = Shape::count() == R;
  constexpr auto os = Shape::out_strides;
  constexpr index_t length = row_length_v<S>;
  constexpr bool last_reduced = R == 0 || Shape::reduced(R - 1);
  // the reduced axis (the only one, unless all_axes)
  [[maybe_unused]] constexpr std::size_t ax = [] {
    for (std::size_t r = 0; r < R; ++r)
      if (Shape::reduced(r)) return r;
    return std::size_t{0};
  }();

  block_storage<A> best = allocate_block<A>(Shape::out_size);
  block<std::int32_t, out_shape> out;
  std::int32_t* where = out.data();
  block_storage<bool> seen = allocate_block<bool>(Shape::out_size);
  for (index_t i = 0; i < Shape::out_size; ++i) seen[i] = false;
  auto better = [](A v, A b) {
    if constexpr (is_floating_v<A>) {
      if (b != b) return false;
      if (v != v) return true;
    }
    return Max ? v > b : v < b;
  };
  index_t flat = 0;
  for_each_row(e, [&](index_array<R> const& idx, auto const& row) {
    index_t off = 0;
    for (std::size_t r = 0; r + 1 < R; ++r) off += idx[r] * os[r];
    index_t base = 0;
    if constexpr (all_axes)
      base = flat;
    else if constexpr (!last_reduced)
      base = idx[ax];
    for (index_t j = 0; j < length; ++j) {
      index_t const o = last_reduced ? off : off + j;
      index_t const position = last_reduced ? base + j : base;
      A const v = static_cast<A>(row(j));
      if (!seen[o] || better(v, best[o])) {
        best[o] = v;
        where[o] = static_cast<std::int32_t>(position);
        seen[o] = true;
      }
    }
    flat += length;
  });
  return out;
}

template <bool Max, class X, class... Opts>
auto arg_reduce_entry(X&& x, Opts...) {
  static_assert(valid_reduce_options_v<Opts...>,
                "pallas::argmax: options are pl::axis<A> then pl::keepdims");
  using E = operand_t<X>;
  using opts = parse_reduce_options<Opts...>;
  using Shape = typename opts::template shape<typename E::shape_type>;
  constexpr bool one_axis = Shape::count() == 1 || Shape::count() == E::shape_type::rank();
  if constexpr (!Shape::axes::ok) {
    Shape::axes::check();
    return block<std::int32_t, shape<>>{};
  } else {
    static_assert(one_axis, "pallas::argmax: reduces one axis, or all of them");
    return arg_reduce<Max, Shape>(as_operand(std::forward<X>(x)));
  }
}

}  // namespace detail

#define PALLAS_DETAIL_REDUCTION(name, policy)                                             \
  template <Operand X, detail::ReduceOption... Opts>                                      \
  auto name(X&& x, Opts... opts) {                                                        \
    return detail::reduce_entry<detail::policy>(std::forward<X>(x), opts...);             \
  }
/// jnp.sum.
PALLAS_DETAIL_REDUCTION(sum, sum_reduction)
/// jnp.prod.
PALLAS_DETAIL_REDUCTION(prod, prod_reduction)
/// jnp.max (NaN-propagating); elementwise is pl::maximum.
PALLAS_DETAIL_REDUCTION(max, max_reduction)
/// jnp.min (NaN-propagating); elementwise is pl::minimum.
PALLAS_DETAIL_REDUCTION(min, min_reduction)
/// jnp.mean.
PALLAS_DETAIL_REDUCTION(mean, mean_reduction)
/// jnp.any.
PALLAS_DETAIL_REDUCTION(any, logical_reduction<false>)
/// jnp.all.
PALLAS_DETAIL_REDUCTION(all, logical_reduction<true>)
#undef PALLAS_DETAIL_REDUCTION

/// jnp.argmax(x[, axis][, keepdims]): int32.
template <Operand X, detail::ReduceOption... Opts>
auto argmax(X&& x, Opts... opts) {
  return detail::arg_reduce_entry<true>(std::forward<X>(x), opts...);
}

/// jnp.argmin(x[, axis][, keepdims]): int32.
template <Operand X, detail::ReduceOption... Opts>
auto argmin(X&& x, Opts... opts) {
  return detail::arg_reduce_entry<false>(std::forward<X>(x), opts...);
}

}  // namespace pallas
