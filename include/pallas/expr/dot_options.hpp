// SPDX-License-Identifier: Apache-2.0
#pragma once
// The options of pl::dot and pl::dot_general (tag values, in any order):
//
//   pl::trans_a, pl::trans_b                    pl.dot's trans_a / trans_b
//   pl::preferred_element_type<T>               preferred_element_type=T
//   pl::contracting_dims<L, R>, pl::batch_dims<L, R>
//                                               lax.dot_general's dimension numbers
//   pl::precision<pl::Precision::HIGHEST>       precision=lax.Precision.HIGHEST; also
//   pl::precision<P, Q>                         DEFAULT, HIGH, and one per operand
//
// Precision: on a TPU, DEFAULT and HIGH round f32 operands to bf16 passes of the MXU. On
// a CPU every product is computed at HIGHEST (f32 operands as they are, f32
// accumulation), whatever the precision says: it is accepted so kernels port unchanged,
// and it does not change results.

#include <type_traits>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>
#include <boost/mp11/utility.hpp>

namespace pallas {

/// pl.dot's trans_a: contract the first dimension of the left operand.
struct trans_a_t {
  explicit constexpr trans_a_t() = default;
};
/// The option value: `pl::dot(a, b, pl::trans_a)`.
inline constexpr trans_a_t trans_a{};

/// pl.dot's trans_b: contract the last dimension of the right operand.
struct trans_b_t {
  explicit constexpr trans_b_t() = default;
};
/// The option value: `pl::dot(a, b, pl::trans_b)`.
inline constexpr trans_b_t trans_b{};

/// `preferred_element_type=T`.
template <class T>
struct preferred_element_type_t {
  explicit constexpr preferred_element_type_t() = default;
};
/// The option value: `pl::dot(a, b, pl::preferred_element_type<float>)`.
template <class T>
inline constexpr preferred_element_type_t<T> preferred_element_type{};

/// The contracting dimensions of lax.dot_general, one per operand.
template <int L, int R>
struct contracting_dims_t {
  explicit constexpr contracting_dims_t() = default;
};
/// The option value: `pl::dot_general(a, b, pl::contracting_dims<1, 0>)`.
template <int L, int R>
inline constexpr contracting_dims_t<L, R> contracting_dims{};

/// The batch dimensions of lax.dot_general, one per operand.
template <int L, int R>
struct batch_dims_t {
  static constexpr int lhs = L;  ///< the batch dimension of the left operand
  static constexpr int rhs = R;  ///< the batch dimension of the right operand
  explicit constexpr batch_dims_t() = default;
};
/// The option value: `pl::dot_general(a, b, ..., pl::batch_dims<0, 0>)`.
template <int L, int R>
inline constexpr batch_dims_t<L, R> batch_dims{};

/// `jax.lax.Precision`: the MXU passes a TPU spends on f32 operands.
enum class Precision { DEFAULT, HIGH, HIGHEST };

/// `precision=P` (both operands) or `precision=(P, Q)` (one per operand).
template <Precision... P>
struct precision_t {
  static_assert(sizeof...(P) == 1 || sizeof...(P) == 2,
                "pallas::precision: give one precision, or one per operand");
  explicit constexpr precision_t() = default;
};
/// The option value: `pl::dot(a, b, pl::precision<pl::Precision::HIGHEST>)`.
template <Precision... P>
inline constexpr precision_t<P...> precision{};

namespace detail {

template <class T>
struct is_preferred : std::false_type {};
template <class T>
struct is_preferred<preferred_element_type_t<T>> : std::true_type {
  using type = T;
};

template <class T>
struct is_precision : std::false_type {};
template <Precision... P>
struct is_precision<precision_t<P...>> : std::true_type {};

template <class T>
concept DotOption = is_preferred<T>::value || is_precision<T>::value ||
                    std::is_same_v<T, trans_a_t> || std::is_same_v<T, trans_b_t>;

template <class L>
using first_preferred_t = typename is_preferred<boost::mp11::mp_front<L>>::type;

/// The T of the first preferred_element_type_t<T> among the options, or void.
template <class... O>
using preferred_of_t = boost::mp11::mp_eval_if<
    boost::mp11::mp_empty<boost::mp11::mp_copy_if<boost::mp11::mp_list<O...>, is_preferred>>, void,
    first_preferred_t, boost::mp11::mp_copy_if<boost::mp11::mp_list<O...>, is_preferred>>;

template <class T>
struct is_batch_dims : std::false_type {};
template <int L, int R>
struct is_batch_dims<batch_dims_t<L, R>> : std::true_type {};

template <class T>
concept DotGeneralOption = is_preferred<T>::value || is_batch_dims<T>::value || is_precision<T>::value;

/// The first batch_dims_t among the options, or batch_dims_t<-1, -1> (none).
template <class... O>
using batch_of_t = boost::mp11::mp_eval_if<
    boost::mp11::mp_empty<boost::mp11::mp_copy_if<boost::mp11::mp_list<O...>, is_batch_dims>>,
    batch_dims_t<-1, -1>, boost::mp11::mp_front,
    boost::mp11::mp_copy_if<boost::mp11::mp_list<O...>, is_batch_dims>>;

}  // namespace detail
}  // namespace pallas
