// SPDX-License-Identifier: Apache-2.0
#pragma once
// pltpu::bitcast<U>(x): `pltpu.bitcast(x, U)`, x's bits reinterpreted as dtype U. With
// equal bit widths each element is reinterpreted. Otherwise, as on the TPU's (sublane)
// layout, elements pack or unpack along the second-minor dimension, whose extent scales
// by bits(T) / bits(U):
//   narrower to wider (p = bits(U) / bits(T)): out[..., i, j] holds x[..., i*p + k, j] in
//     bits [k * bits(T), (k + 1) * bits(T)), k = 0..p-1 (the first row in the low bits);
//   wider to narrower (p = bits(T) / bits(U)): out[..., i*p + k, j] is bits
//     [k * bits(U), (k + 1) * bits(U)) of x[..., i, j].
// x needs rank >= 2 (as in Pallas), and the second-minor extent times bits(T) must be a
// multiple of bits(U). bool has no bit layout here and is rejected.
//
// Eager: it returns an owning pl::block.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include <pallas/dtype.hpp>
#include <pallas/expr/block.hpp>
#include <pallas/expr/expression.hpp>
#include <pallas/shape.hpp>

namespace pallas {
namespace detail {

template <int Bits>
using uint_of_bits = std::conditional_t<Bits == 8, std::uint8_t,
                                        std::conditional_t<Bits == 16, std::uint16_t, std::uint32_t>>;

template <class T>
constexpr std::uint32_t bits_of(T v) noexcept {
  return static_cast<std::uint32_t>(std::bit_cast<uint_of_bits<8 * sizeof(T)>>(v));
}

template <class U>
constexpr U from_bits_of(std::uint32_t w) noexcept {
  return std::bit_cast<U>(static_cast<uint_of_bits<8 * sizeof(U)>>(w));
}

template <class S, index_t NewMinor2, class Seq = std::make_index_sequence<S::rank()>>
struct bitcast_shape;
template <class S, index_t NewMinor2, std::size_t... K>
struct bitcast_shape<S, NewMinor2, std::index_sequence<K...>> {
  using type = shape<(K + 2 == S::rank() ? NewMinor2 : S::static_extent(K))...>;
};

/// Reports the first broken rule of bitcast<U> on values of dtype T and shape S.
template <class T, class U, class S>
constexpr bool bitcast_ok() {
  static_assert(Dtype<U>, "pallas::tpu::bitcast: the target must be a pallas dtype");
  static_assert(!std::is_same_v<T, bool> && !std::is_same_v<U, bool>,
                "pallas::tpu::bitcast: bool has no bit layout; bitcast integers or floats");
  if constexpr (Dtype<U> && !std::is_same_v<T, bool> && !std::is_same_v<U, bool>) {
    static_assert(S::rank() >= 2,
                  "pallas::tpu::bitcast: the value needs rank >= 2 (1-D bitcast is not "
                  "implemented, as in Pallas)");
    if constexpr (S::rank() >= 2) {
      constexpr index_t m = S::static_extent(S::rank() - 2);
      constexpr index_t sb = 8 * sizeof(T), db = 8 * sizeof(U);
      static_assert(m * sb % db == 0,
                    "pallas::tpu::bitcast: the second-minor extent times the source bit width "
                    "must be a multiple of the target bit width (extent * bits % bits == 0)");
      return m * sb % db == 0;
    }
  }
  return false;
}

}  // namespace detail

namespace tpu {

/// `pltpu.bitcast(x, U)`.
template <class U, Operand X>
auto bitcast(X&& x) {
  using E = pallas::detail::operand_t<X>;
  using T = typename E::value_type;
  using S = typename E::shape_type;
  if constexpr (!pallas::detail::bitcast_ok<T, U, S>()) {
    return block<std::conditional_t<Dtype<U> && !std::is_same_v<U, bool>, U, float>, S>{};  // the rule said why
  } else {
    constexpr std::size_t R = S::rank();
    constexpr index_t sb = 8 * sizeof(T), db = 8 * sizeof(U);
    constexpr index_t m = S::static_extent(R - 2), n = S::static_extent(R - 1);
    constexpr index_t lead = m * n == 0 ? 0 : S::static_size() / (m * n);
    using NS = typename pallas::detail::bitcast_shape<S, m * sb / db>::type;
    block<T, S> const src(pallas::detail::as_operand(std::forward<X>(x)));
    block<U, NS> out;
    T const* in = src.data();
    U* o = out.data();
    if constexpr (sb == db) {
      for (index_t i = 0; i < S::static_size(); ++i) o[i] = std::bit_cast<U>(in[i]);
    } else if constexpr (sb < db) {  // pack p rows into one
      constexpr index_t p = db / sb, mo = m / p;
      for (index_t l = 0; l < lead; ++l)
        for (index_t i = 0; i < mo; ++i)
          for (index_t j = 0; j < n; ++j) {
            std::uint32_t w = 0;
            for (index_t k = 0; k < p; ++k)
              w |= pallas::detail::bits_of(in[(l * m + i * p + k) * n + j]) << (k * sb);
            o[(l * mo + i) * n + j] = pallas::detail::from_bits_of<U>(w);
          }
    } else {  // unpack one row into p
      constexpr index_t p = sb / db, mo = m * p;
      constexpr std::uint32_t mask = (std::uint32_t{1} << db) - 1u;
      for (index_t l = 0; l < lead; ++l)
        for (index_t i = 0; i < m; ++i)
          for (index_t j = 0; j < n; ++j) {
            std::uint32_t const w = pallas::detail::bits_of(in[(l * m + i) * n + j]);
            for (index_t k = 0; k < p; ++k)
              o[(l * mo + i * p + k) * n + j] = pallas::detail::from_bits_of<U>((w >> (k * db)) & mask);
          }
    }
    return out;
  }
}

}  // namespace tpu
}  // namespace pallas
