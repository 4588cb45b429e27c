// SPDX-License-Identifier: Apache-2.0
#pragma once
// The TensorCore's stateful PRNG (`pltpu.prng_seed`, `pltpu.prng_random_bits`,
// `pltpu.stateful_bits/uniform/normal/bernoulli`):
//
//   pltpu::prng_seed(seed, pl::program_id(0));            // one or more integer seeds
//   auto bits = pltpu::prng_random_bits<pl::shape<8, 128>>();      // int32 block
//   auto u = pltpu::stateful_uniform<pl::shape<8, 128>>(-1.0f, 1.0f);   // [min, max)
//   auto z = pltpu::stateful_normal<pl::shape<8, 128>>();          // N(0, 1), float32
//   auto keep = pltpu::stateful_bernoulli<pl::shape<8, 128>>(0.9f);     // bool, P(true) = p
//   auto w = pltpu::stateful_bits<pl::shape<8, 128>>();            // uint32
//   pltpu::prng_random_bits(o_ref.shape)                           // a shape value works too
//
// Each core has its own generator (each core is its own thread): prng_seed sets it, every
// draw advances it. The generator is Philox4x32-10, counter-based: the seeds are mixed
// into a 64-bit key, and draw k after the seed is block k of that key's stream. Hardware
// PRNGs differ between TPU generations, and this one is not bit-equal to any of them;
// what it guarantees: the same seeds give the same numbers (on every core, so a
// pallas_call that seeds with its program ids gives the same result on 1, 2 or 4 cores),
// different seeds (or seeds in another order) give independent streams, and the
// distributions are the documented ones. Seed before drawing, as on hardware: the state
// persists on a core until its next prng_seed, across kernels.
//
// Distributions, as jax.random's: uniform takes the dtype's mantissa width of random bits
// (23 for f32, 7 for bf16, 10 for f16), u in [0, 1), and returns max(min, min + (max - min)
// * u); normal is Box-Muller on 32-bit uniforms in double, rounded once to the dtype;
// bernoulli is uniform_f32 < p.

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numbers>
#include <type_traits>

#include <pallas/detail/philox.hpp>
#include <pallas/dtype.hpp>
#include <pallas/expr/block.hpp>
#include <pallas/expr/expression.hpp>
#include <pallas/shape.hpp>
#include <pallas/detail/runtime/core.hpp>

namespace pallas {
namespace detail {

/// One core's generator: the key its seeds made and the next block of the stream.
struct prng_state {
  philox_key key{0x243F6A88u, 0x85A308D3u};
  std::uint64_t next_block = 0;
};

/// The calling core's generator (a kernel's core: each core is one thread).
inline prng_state& core_prng(char const* who) {
  (void)this_core(who);
  thread_local prng_state state;
  return state;
}

/// Calls put(i, word) for n fresh 32-bit words of the core's stream (a draw starts at a
/// fresh block of four words).
template <class F>
void prng_draw(char const* who, index_t n, F&& put) {
  prng_state& s = core_prng(who);
  for (index_t i = 0; i < n; i += 4) {
    std::uint64_t const b = s.next_block++;
    philox_block const w = philox4x32_10(
        {static_cast<std::uint32_t>(b), static_cast<std::uint32_t>(b >> 32), 0x5EEDu, 0u}, s.key);
    for (index_t k = 0; k < 4 && i + k < n; ++k) put(i + k, w[static_cast<std::size_t>(k)]);
  }
}

/// The uniform [0, 1) value of a word with the mantissa width of floating dtype T: exact
/// in T (k / 2^m, k < 2^m).
template <class T>
float unit_interval(std::uint32_t w) noexcept {
  constexpr int m = std::numeric_limits<T>::digits - 1;
  return static_cast<float>(w >> (32 - m)) * (1.0f / static_cast<float>(std::uint32_t{1} << m));
}

template <class T>
inline constexpr bool prng_float_v = std::is_same_v<T, float> || is_half_v<T>;

}  // namespace detail

namespace tpu {

/// `pltpu.prng_seed(*seeds)`: seeds the calling core's generator; one or more integers,
/// mixed in order (prng_seed(1, 2) and prng_seed(2, 1) are different streams).
template <Integer... I>
void prng_seed(I... seeds) {
  static_assert(sizeof...(I) >= 1, "pallas::tpu::prng_seed: needs at least one seed");
  pallas::detail::prng_state& s = pallas::detail::core_prng("prng_seed");
  pallas::detail::philox_key key{0x243F6A88u, 0x85A308D3u};
  std::uint32_t position = 0;
  auto mix = [&](index_t seed) {
    auto const v = static_cast<std::uint64_t>(seed);  // int32 and int64 seeds agree
    pallas::detail::philox_block const b = pallas::detail::philox4x32_10(
        {static_cast<std::uint32_t>(v), static_cast<std::uint32_t>(v >> 32), position++,
         static_cast<std::uint32_t>(sizeof...(I))},
        key);
    key = {b[0], b[1]};
  };
  (mix(static_cast<index_t>(seeds)), ...);
  s.key = key;
  s.next_block = 0;
}

/// `pltpu.prng_random_bits(shape)`: an int32 block of random bits.
template <Extents S>
block<std::int32_t, S> prng_random_bits() {
  static_assert(S::is_static, "pallas::tpu::prng_random_bits: the shape must be static");
  block<std::int32_t, S> out;
  std::int32_t* p = out.data();
  pallas::detail::prng_draw("prng_random_bits", S::static_size(),
                    [p](index_t i, std::uint32_t w) { p[i] = static_cast<std::int32_t>(w); });
  return out;
}
/// The same, with the shape as a value: `prng_random_bits(pl::shape<8, 128>{})`.
template <index_t... E>
auto prng_random_bits(extents<E...> const&) {
  return prng_random_bits<extents<E...>>();
}

/// `pltpu.stateful_bits(shape, dtype)`: random bits as uint32 (or int32).
template <Extents S, class T = std::uint32_t>
block<T, S> stateful_bits() {
  static_assert(std::is_same_v<T, std::uint32_t> || std::is_same_v<T, std::int32_t>,
                "pallas::tpu::stateful_bits: the dtype must be std::uint32_t or std::int32_t");
  block<T, S> out;
  T* p = out.data();
  pallas::detail::prng_draw("stateful_bits", S::static_size(), [p](index_t i, std::uint32_t w) { p[i] = static_cast<T>(w); });
  return out;
}
/// The same, with the shape as a value.
template <class T = std::uint32_t, index_t... E>
auto stateful_bits(extents<E...> const&) {
  return stateful_bits<extents<E...>, T>();
}

/// `pltpu.stateful_uniform(shape, dtype, minval, maxval)`: uniform in [minval, maxval).
template <Extents S, class T = float>
block<T, S> stateful_uniform(float minval = 0.0f, float maxval = 1.0f) {
  static_assert(pallas::detail::prng_float_v<T>,
                "pallas::tpu::stateful_uniform: the dtype must be float, pl::bfloat16 or pl::float16");
  block<T, S> out;
  T* p = out.data();
  pallas::detail::prng_draw("stateful_uniform", S::static_size(), [=](index_t i, std::uint32_t w) {
    float const u = pallas::detail::unit_interval<T>(w);
    T const v = T(minval + (maxval - minval) * u);
    p[i] = static_cast<float>(v) < minval ? T(minval) : v;
  });
  return out;
}
/// The same, with the shape as a value.
template <class T = float, index_t... E>
auto stateful_uniform(extents<E...> const&, float minval = 0.0f, float maxval = 1.0f) {
  return stateful_uniform<extents<E...>, T>(minval, maxval);
}

/// `pltpu.stateful_normal(shape, dtype)`: standard normal samples.
template <Extents S, class T = float>
block<T, S> stateful_normal() {
  static_assert(pallas::detail::prng_float_v<T>,
                "pallas::tpu::stateful_normal: the dtype must be float, pl::bfloat16 or pl::float16");
  block<T, S> out;
  T* p = out.data();
  constexpr index_t n = S::static_size();
  // Box-Muller: two words give two samples; u1 in (0, 1] keeps log finite.
  std::uint32_t first = 0;
  pallas::detail::prng_draw("stateful_normal", n + (n & 1), [&](index_t i, std::uint32_t w) {
    if ((i & 1) == 0) {
      first = w;
      return;
    }
    double const u1 = (static_cast<double>(first) + 1.0) * 0x1p-32;
    double const u2 = static_cast<double>(w) * 0x1p-32;
    double const r = std::sqrt(-2.0 * std::log(u1));
    double const a = 2.0 * std::numbers::pi * u2;
    p[i - 1] = T(static_cast<float>(r * std::cos(a)));
    if (i < n) p[i] = T(static_cast<float>(r * std::sin(a)));
  });
  return out;
}
/// The same, with the shape as a value.
template <class T = float, index_t... E>
auto stateful_normal(extents<E...> const&) {
  return stateful_normal<extents<E...>, T>();
}

/// `pltpu.stateful_bernoulli(p, shape)`: true with probability p.
template <Extents S>
block<bool, S> stateful_bernoulli(float prob = 0.5f) {
  block<bool, S> out;
  bool* q = out.data();
  pallas::detail::prng_draw("stateful_bernoulli", S::static_size(),
                    [=](index_t i, std::uint32_t w) { q[i] = pallas::detail::unit_interval<float>(w) < prob; });
  return out;
}
/// The same, with the shape as a value.
template <index_t... E>
auto stateful_bernoulli(float prob, extents<E...> const&) {
  return stateful_bernoulli<extents<E...>>(prob);
}

}  // namespace tpu
}  // namespace pallas
