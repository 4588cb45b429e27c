// SPDX-License-Identifier: Apache-2.0
#pragma once
// Elementwise block operations, lazy (one pass when assigned), with numpy broadcasting and
// jnp type promotion:
//
//   operators   + - * / %   unary - + ~ !   == != < <= > >=   & | ^ << >>
//   functions   pl::maximum, pl::minimum, pl::where, pl::select, pl::clip, pl::abs,
//               pl::sign, pl::square, pl::exp, pl::exp2, pl::expm1, pl::log, pl::log2,
//               pl::log1p, pl::sqrt, pl::rsqrt, pl::cbrt, pl::tanh, pl::logistic
//               (= pl::sigmoid), pl::sin, pl::cos, pl::tan, pl::erf, pl::floor, pl::ceil,
//               pl::round, pl::trunc, pl::reciprocal, pl::pow (= pl::power),
//               pl::floor_divide, pl::true_divide, pl::remainder, pl::logical_and,
//               pl::logical_or, pl::logical_xor, pl::logical_not, pl::isnan, pl::isinf,
//               pl::isfinite
//
// Shapes broadcast like numpy (trailing dimensions aligned; 1 stretches); other mismatches
// do not compile, and the error names both shapes. C++ arithmetic scalars are weakly typed
// like Python scalars: `x_bf16 * 2` is bf16, `x_i32 * 0.5f` is f32. Integer `/` is jnp's
// `//`; `%` takes the divisor's sign (see expr/ops.hpp for the exact semantics).

#include <type_traits>
#include <utility>

#include <pallas/dtype.hpp>
#include <pallas/expr/block.hpp>
#include <pallas/expr/expression.hpp>
#include <pallas/expr/ops.hpp>

namespace pallas {

namespace detail {

/// op(a): a lazy elementwise node.
template <class Op, class A>
class unary : public expr_methods<unary<Op, A>> {
 public:
  using input_type = typename Op::template input_t<typename A::value_type>;
  using value_type = typename Op::template result_t<input_type>;
  using shape_type = typename A::shape_type;
  static constexpr std::size_t rank = shape_type::rank();
  static constexpr bool flat_shape = A::flat_shape;

  explicit unary(A a) : a_(std::move(a)) {}

  bool contiguous() const noexcept { return a_.contiguous(); }
  bool unit_rows() const noexcept { return a_.unit_rows(); }
  template <bool Unit>
  auto row(index_array<rank> const& idx) const noexcept {
    return [ra = a_.template row<Unit>(idx)](index_t j) noexcept {
      return Op::apply(convert<input_type>(ra(j)));
    };
  }
  bool aliases(memory_region const& m, bool remapped) const noexcept {
    return a_.aliases(m, remapped);
  }
  A const& operand() const noexcept { return a_; }

 private:
  A a_;
};

/// op(a, b): a lazy elementwise node; a and b broadcast against each other.
template <class Op, class A, class B>
class binary : public expr_methods<binary<Op, A, B>> {
  using sa = typename A::shape_type;
  using sb = typename B::shape_type;

 public:
  using input_type =
      typename Op::template input_t<promote_t<typename A::value_type, typename B::value_type>>;
  using value_type = typename Op::template result_t<input_type>;
  using shape_type = broadcast_shape_t<sa, sb>;
  static constexpr std::size_t rank = shape_type::rank();
  static constexpr bool flat_shape = A::flat_shape && B::flat_shape &&
                                     flat_child_v<sa, shape_type> && flat_child_v<sb, shape_type>;

  binary(A a, B b) : a_(std::move(a)), b_(std::move(b)) {}

  bool contiguous() const noexcept {
    return (sa::static_size() == 1 || a_.contiguous()) && (sb::static_size() == 1 || b_.contiguous());
  }
  bool unit_rows() const noexcept {
    return (last_const_v<sa> || a_.unit_rows()) && (last_const_v<sb> || b_.unit_rows());
  }
  template <bool Unit>
  auto row(index_array<rank> const& idx) const noexcept {
    return [ra = a_.template row<Unit>(map_index<sa>(idx)),
            rb = b_.template row<Unit>(map_index<sb>(idx))](index_t j) noexcept {
      return Op::apply(convert<input_type>(ra(broadcasts_last_v<sa, shape_type> ? 0 : j)),
                       convert<input_type>(rb(broadcasts_last_v<sb, shape_type> ? 0 : j)));
    };
  }
  bool aliases(memory_region const& m, bool remapped) const noexcept {
    return a_.aliases(m, remapped || !std::is_same_v<sa, shape_type>) ||
           b_.aliases(m, remapped || !std::is_same_v<sb, shape_type>);
  }

 private:
  A a_;
  B b_;
};

/// where(c, a, b): a lazy elementwise select; the three broadcast together.
template <class C, class A, class B>
class select_node : public expr_methods<select_node<C, A, B>> {
  using sc = typename C::shape_type;
  using sa = typename A::shape_type;
  using sb = typename B::shape_type;

 public:
  using value_type = promote_t<typename A::value_type, typename B::value_type>;
  using shape_type = broadcast_shape_t<sc, broadcast_shape_t<sa, sb>>;
  static constexpr std::size_t rank = shape_type::rank();
  static constexpr bool flat_shape = C::flat_shape && A::flat_shape && B::flat_shape &&
                                     flat_child_v<sc, shape_type> &&
                                     flat_child_v<sa, shape_type> && flat_child_v<sb, shape_type>;

  select_node(C c, A a, B b) : c_(std::move(c)), a_(std::move(a)), b_(std::move(b)) {}

  bool contiguous() const noexcept {
    return (sc::static_size() == 1 || c_.contiguous()) &&
           (sa::static_size() == 1 || a_.contiguous()) &&
           (sb::static_size() == 1 || b_.contiguous());
  }
  bool unit_rows() const noexcept {
    return (last_const_v<sc> || c_.unit_rows()) && (last_const_v<sa> || a_.unit_rows()) &&
           (last_const_v<sb> || b_.unit_rows());
  }
  template <bool Unit>
  auto row(index_array<rank> const& idx) const noexcept {
    return [rc = c_.template row<Unit>(map_index<sc>(idx)),
            ra = a_.template row<Unit>(map_index<sa>(idx)),
            rb = b_.template row<Unit>(map_index<sb>(idx))](index_t j) noexcept {
      value_type const x = convert<value_type>(ra(broadcasts_last_v<sa, shape_type> ? 0 : j));
      value_type const y = convert<value_type>(rb(broadcasts_last_v<sb, shape_type> ? 0 : j));
      return convert<bool>(rc(broadcasts_last_v<sc, shape_type> ? 0 : j)) ? x : y;
    };
  }
  bool aliases(memory_region const& m, bool remapped) const noexcept {
    return c_.aliases(m, remapped || !std::is_same_v<sc, shape_type>) ||
           a_.aliases(m, remapped || !std::is_same_v<sa, shape_type>) ||
           b_.aliases(m, remapped || !std::is_same_v<sb, shape_type>);
  }

 private:
  C c_;
  A a_;
  B b_;
};

/// Ops that need integer (or bool) operands.
template <class Op>
inline constexpr bool is_bitwise_op_v =
    std::is_same_v<Op, bit_and_op> || std::is_same_v<Op, bit_or_op> ||
    std::is_same_v<Op, bit_xor_op> || std::is_same_v<Op, shift_left_op> ||
    std::is_same_v<Op, shift_right_op> || std::is_same_v<Op, bit_not_op>;

template <class A, class B>
concept binary_operands =
    (Operand<A> && (Operand<B> || Scalar<B>)) || (Scalar<A> && Operand<B>);

template <class Op, class A, class B>
auto binary_node(A a, B b) {
  using sa = typename A::shape_type;
  using sb = typename B::shape_type;
  using common = promote_t<typename A::value_type, typename B::value_type>;
  if constexpr (!broadcastable_v<sa, sb>) {
    broadcast_pair<sa, sb>::check();
  } else if constexpr (is_bitwise_op_v<Op>) {
    static_assert(std::is_integral_v<common>,
                  "pallas::bitwise: &, |, ^, ~, <<, >> need integer or bool operands");
  }
  return binary<Op, A, B>(std::move(a), std::move(b));
}

/// A weak scalar next to an operand of dtype T, as a constant of the dtype jnp gives it.
template <class T, class S>
auto weak_operand(S s) {
  using W = weak_result_t<T, S>;
  return scalar<W>(from_scalar<W>(s));
}

template <class Op, class A, class B>
auto make_binary(A&& a, B&& b) {
  if constexpr (WeakScalar<A>)
    return binary_node<Op>(weak_operand<dtype_of_t<B>>(a), as_operand(std::forward<B>(b)));
  else if constexpr (WeakScalar<B>)
    return binary_node<Op>(as_operand(std::forward<A>(a)), weak_operand<dtype_of_t<A>>(b));
  else
    return binary_node<Op>(as_operand(std::forward<A>(a)), as_operand(std::forward<B>(b)));
}

template <class Op, class A>
auto make_unary(A&& a) {
  using E = operand_t<A>;
  if constexpr (is_bitwise_op_v<Op>)
    static_assert(std::is_integral_v<typename E::value_type>,
                  "pallas::bitwise: &, |, ^, ~, <<, >> need integer or bool operands");
  return unary<Op, E>(as_operand(std::forward<A>(a)));
}

}  // namespace detail

// ---------------------------------------------------------------------------------------
// operators

#define PALLAS_DETAIL_BINARY_OPERATOR(symbol, op)                        \
  template <class A, class B>                                            \
    requires detail::binary_operands<A, B>                               \
  auto operator symbol(A&& a, B&& b) {                                   \
    return detail::make_binary<detail::op>(std::forward<A>(a), std::forward<B>(b)); \
  }
/// @name Element-wise operators
/// @{

/// Element-wise arithmetic, comparison, bitwise and shift operators on blocks, refs and
/// scalars, as numpy's: the operands broadcast (numpy rules), dtypes promote as jnp does,
/// and the result is a lazy expression evaluated when assigned or `.eval()`ed.
/// `%` and `/` on integers follow numpy (floor semantics for `%`); bitwise operators
/// need integer or bool operands.
PALLAS_DETAIL_BINARY_OPERATOR(+, add_op)
PALLAS_DETAIL_BINARY_OPERATOR(-, sub_op)
PALLAS_DETAIL_BINARY_OPERATOR(*, mul_op)
PALLAS_DETAIL_BINARY_OPERATOR(/, div_op)
PALLAS_DETAIL_BINARY_OPERATOR(%, rem_op)
PALLAS_DETAIL_BINARY_OPERATOR(==, eq_op)
PALLAS_DETAIL_BINARY_OPERATOR(!=, ne_op)
PALLAS_DETAIL_BINARY_OPERATOR(<, lt_op)
PALLAS_DETAIL_BINARY_OPERATOR(<=, le_op)
PALLAS_DETAIL_BINARY_OPERATOR(>, gt_op)
PALLAS_DETAIL_BINARY_OPERATOR(>=, ge_op)
PALLAS_DETAIL_BINARY_OPERATOR(&, bit_and_op)
PALLAS_DETAIL_BINARY_OPERATOR(|, bit_or_op)
PALLAS_DETAIL_BINARY_OPERATOR(^, bit_xor_op)
PALLAS_DETAIL_BINARY_OPERATOR(<<, shift_left_op)
PALLAS_DETAIL_BINARY_OPERATOR(>>, shift_right_op)
#undef PALLAS_DETAIL_BINARY_OPERATOR

/// Element-wise negation, identity, bitwise not and logical not of a block, ref or scalar.
template <Operand A>
auto operator-(A&& a) {
  return detail::make_unary<detail::neg_op>(std::forward<A>(a));
}
template <Operand A>
auto operator+(A&& a) {
  return detail::as_operand(std::forward<A>(a));
}
template <Operand A>
auto operator~(A&& a) {
  return detail::make_unary<detail::bit_not_op>(std::forward<A>(a));
}
template <Operand A>
auto operator!(A&& a) {
  return detail::make_unary<detail::logical_not_op>(std::forward<A>(a));
}
/// @}

// ---------------------------------------------------------------------------------------
// named functions

#define PALLAS_DETAIL_BINARY_FUNCTION(name, op)                                       \
  template <class A, class B>                                                         \
    requires detail::binary_operands<A, B>                                            \
  auto name(A&& a, B&& b) {                                                           \
    return detail::make_binary<detail::op>(std::forward<A>(a), std::forward<B>(b));   \
  }
/// @name Element-wise binary functions
/// @{

/// jnp's binary functions of the same names (`jnp.maximum`, `jnp.minimum` NaN-propagating,
/// `jnp.power`, `jnp.floor_divide`, `jnp.true_divide`, `jnp.remainder`, the logical ops,
/// `lax.shift_left`, `lax.shift_right_arithmetic`): element-wise, broadcasting and promoting
/// like the operators.
PALLAS_DETAIL_BINARY_FUNCTION(maximum, max_op)
PALLAS_DETAIL_BINARY_FUNCTION(minimum, min_op)
PALLAS_DETAIL_BINARY_FUNCTION(pow, pow_op)
PALLAS_DETAIL_BINARY_FUNCTION(power, pow_op)
PALLAS_DETAIL_BINARY_FUNCTION(floor_divide, floor_divide_op)
PALLAS_DETAIL_BINARY_FUNCTION(true_divide, true_divide_op)
PALLAS_DETAIL_BINARY_FUNCTION(divide, true_divide_op)
PALLAS_DETAIL_BINARY_FUNCTION(remainder, rem_op)
PALLAS_DETAIL_BINARY_FUNCTION(logical_and, logical_and_op)
PALLAS_DETAIL_BINARY_FUNCTION(logical_or, logical_or_op)
PALLAS_DETAIL_BINARY_FUNCTION(logical_xor, logical_xor_op)
PALLAS_DETAIL_BINARY_FUNCTION(shift_left, shift_left_op)
PALLAS_DETAIL_BINARY_FUNCTION(shift_right_arithmetic, shift_right_op)
/// @}
#undef PALLAS_DETAIL_BINARY_FUNCTION

#define PALLAS_DETAIL_UNARY_FUNCTION(name, op)                                         \
  template <Operand A>                                                                 \
  auto name(A&& a) {                                                                   \
    return detail::make_unary<detail::op>(std::forward<A>(a));                         \
  }
/// @name Element-wise unary functions
/// @{

/// jnp's (and `jax.nn`'s, `lax`'s) unary functions of the same names, element-wise on a
/// block, ref or scalar: `exp`, `log`, `sqrt`, `rsqrt`, `tanh`, `logistic`/`sigmoid`,
/// `erf`, rounding, `reciprocal`, the `is*` predicates (bool results). Low-precision
/// operands (bfloat16, float16) compute in float32 and round back, as on a TPU.
PALLAS_DETAIL_UNARY_FUNCTION(negative, neg_op)
PALLAS_DETAIL_UNARY_FUNCTION(abs, abs_op)
PALLAS_DETAIL_UNARY_FUNCTION(sign, sign_op)
PALLAS_DETAIL_UNARY_FUNCTION(square, square_op)
PALLAS_DETAIL_UNARY_FUNCTION(exp, exp_op)
PALLAS_DETAIL_UNARY_FUNCTION(exp2, exp2_op)
PALLAS_DETAIL_UNARY_FUNCTION(expm1, expm1_op)
PALLAS_DETAIL_UNARY_FUNCTION(log, log_op)
PALLAS_DETAIL_UNARY_FUNCTION(log2, log2_op)
PALLAS_DETAIL_UNARY_FUNCTION(log1p, log1p_op)
PALLAS_DETAIL_UNARY_FUNCTION(sqrt, sqrt_op)
PALLAS_DETAIL_UNARY_FUNCTION(rsqrt, rsqrt_op)
PALLAS_DETAIL_UNARY_FUNCTION(cbrt, cbrt_op)
PALLAS_DETAIL_UNARY_FUNCTION(tanh, tanh_op)
PALLAS_DETAIL_UNARY_FUNCTION(logistic, logistic_op)
PALLAS_DETAIL_UNARY_FUNCTION(sigmoid, logistic_op)
PALLAS_DETAIL_UNARY_FUNCTION(sin, sin_op)
PALLAS_DETAIL_UNARY_FUNCTION(cos, cos_op)
PALLAS_DETAIL_UNARY_FUNCTION(tan, tan_op)
PALLAS_DETAIL_UNARY_FUNCTION(erf, erf_op)
PALLAS_DETAIL_UNARY_FUNCTION(floor, floor_op)
PALLAS_DETAIL_UNARY_FUNCTION(ceil, ceil_op)
PALLAS_DETAIL_UNARY_FUNCTION(round, round_op)
PALLAS_DETAIL_UNARY_FUNCTION(trunc, trunc_op)
PALLAS_DETAIL_UNARY_FUNCTION(reciprocal, reciprocal_op)
PALLAS_DETAIL_UNARY_FUNCTION(logical_not, logical_not_op)
PALLAS_DETAIL_UNARY_FUNCTION(bitwise_not, bit_not_op)
PALLAS_DETAIL_UNARY_FUNCTION(isnan, isnan_op)
PALLAS_DETAIL_UNARY_FUNCTION(isinf, isinf_op)
PALLAS_DETAIL_UNARY_FUNCTION(isfinite, isfinite_op)
/// @}
#undef PALLAS_DETAIL_UNARY_FUNCTION

/// jnp.where(cond, a, b) / lax.select: a where cond is true, else b; the three broadcast
/// together. a and b promote like a binary op (weak scalars take the other's dtype).
template <class C, class A, class B>
  requires(Operand<C> || Operand<A> || Operand<B>) && (Operand<C> || Scalar<C>) &&
          (Operand<A> || Scalar<A>) && (Operand<B> || Scalar<B>)
auto where(C&& cond, A&& a, B&& b) {
  auto c = [&] {
    if constexpr (WeakScalar<C>)
      return detail::scalar<bool>(static_cast<bool>(cond));
    else
      return detail::as_operand(std::forward<C>(cond));
  }();
  auto branches = [&] {
    if constexpr (WeakScalar<A> && WeakScalar<B>) {
      using T = promote_t<detail::default_dtype_t<std::remove_cvref_t<A>>,
                          detail::default_dtype_t<std::remove_cvref_t<B>>>;
      return std::pair{detail::scalar<T>(detail::from_scalar<T>(a)),
                       detail::scalar<T>(detail::from_scalar<T>(b))};
    } else if constexpr (WeakScalar<A>) {
      return std::pair{detail::weak_operand<detail::dtype_of_t<B>>(a),
                       detail::as_operand(std::forward<B>(b))};
    } else if constexpr (WeakScalar<B>) {
      return std::pair{detail::as_operand(std::forward<A>(a)),
                       detail::weak_operand<detail::dtype_of_t<A>>(b)};
    } else {
      return std::pair{detail::as_operand(std::forward<A>(a)),
                       detail::as_operand(std::forward<B>(b))};
    }
  }();
  using CE = decltype(c);
  using AE = typename decltype(branches)::first_type;
  using BE = typename decltype(branches)::second_type;
  using sc = typename CE::shape_type;
  using sa = typename AE::shape_type;
  using sb = typename BE::shape_type;
  if constexpr (!detail::broadcastable_v<sa, sb>)
    detail::broadcast_pair<sa, sb>::check();
  else if constexpr (!detail::broadcastable_v<sc, detail::broadcast_shape_t<sa, sb>>)
    detail::broadcast_pair<sc, detail::broadcast_shape_t<sa, sb>>::check();
  return detail::select_node<CE, AE, BE>(std::move(c), std::move(branches.first),
                                         std::move(branches.second));
}

/// lax.select(pred, on_true, on_false): pl::where.
template <class C, class A, class B>
  requires requires(C&& c, A&& a, B&& b) {
    pallas::where(std::forward<C>(c), std::forward<A>(a), std::forward<B>(b));
  }
auto select(C&& pred, A&& on_true, B&& on_false) {
  return pallas::where(std::forward<C>(pred), std::forward<A>(on_true), std::forward<B>(on_false));
}

/// jnp.clip(x, lo, hi): minimum(maximum(x, lo), hi).
template <Operand X, class L, class H>
  requires(Operand<L> || Scalar<L>) && (Operand<H> || Scalar<H>)
auto clip(X&& x, L&& lo, H&& hi) {
  return minimum(maximum(std::forward<X>(x), std::forward<L>(lo)), std::forward<H>(hi));
}

}  // namespace pallas
