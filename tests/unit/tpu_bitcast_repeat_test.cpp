// pltpu::bitcast against hand-computed bit patterns and std::bit_cast, packing and unpacking
// along the second-minor dimension, round trips, leading dimensions; pltpu::repeat against a
// naive tile along every axis, negative axes, size-1 extents, a value that reads the
// destination.
#include <catch2/catch.hpp>

#include <bit>
#include <cstdint>
#include <type_traits>

#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

namespace {
using pl::index_t;
}  // namespace

TEST_CASE("pltpu::bitcast: equal widths reinterpret each element", "[tpu][bitcast]") {
  pl::block<float, pl::shape<2, 3>> x = pl::iota<float, pl::shape<2, 3>>(1) - 1.5f;
  auto const y = pltpu::bitcast<std::int32_t>(x);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(y)>, pl::block<std::int32_t, pl::shape<2, 3>>>);
  for (index_t i = 0; i < 2; ++i)
    for (index_t j = 0; j < 3; ++j) CHECK(y(i, j) == std::bit_cast<std::int32_t>(x(i, j)));
  CHECK(pltpu::bitcast<std::int32_t>(pl::full<float, pl::shape<1, 1>>(1.0f))(0, 0) == 0x3F800000);
  auto const back = pltpu::bitcast<float>(pltpu::bitcast<std::uint32_t>(x));
  for (index_t i = 0; i < 6; ++i) CHECK(back.data()[i] == x.data()[i]);
}

TEST_CASE("pltpu::bitcast: narrower to wider packs rows of the second-minor dimension", "[tpu][bitcast]") {
  // int8 (4, 2) -> int32 (1, 2): out[0, j] = x[0, j] | x[1, j] << 8 | x[2, j] << 16 | x[3, j] << 24
  pl::block<std::int8_t, pl::shape<4, 2>> x;
  std::int8_t const v[4][2] = {{1, -1}, {2, 0}, {3, 0x7F}, {4, -128}};
  for (index_t i = 0; i < 4; ++i)
    for (index_t j = 0; j < 2; ++j) x(i, j) = v[i][j];
  auto const y = pltpu::bitcast<std::int32_t>(x);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(y)>, pl::block<std::int32_t, pl::shape<1, 2>>>);
  CHECK(y(0, 0) == 0x04030201);
  CHECK(static_cast<std::uint32_t>(y(0, 1)) == 0x807F00FFu);
  // bf16 (2, 1) -> f32 (1, 1): the second row is the high half
  pl::block<pl::bfloat16, pl::shape<2, 1>> h;
  h(0, 0) = pl::bfloat16::from_bits(0x0000);
  h(1, 0) = pl::bfloat16::from_bits(0x3F80);
  CHECK(pltpu::bitcast<float>(h)(0, 0) == 1.0f);
}

TEST_CASE("pltpu::bitcast: wider to narrower unpacks into rows, low bits first", "[tpu][bitcast]") {
  pl::block<std::uint32_t, pl::shape<1, 2>> x;
  x(0, 0) = 0x11223344u;
  x(0, 1) = 0xA0B0C0D0u;
  auto const y = pltpu::bitcast<std::int16_t>(x);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(y)>, pl::block<std::int16_t, pl::shape<2, 2>>>);
  CHECK(y(0, 0) == 0x3344);
  CHECK(y(1, 0) == 0x1122);
  CHECK(static_cast<std::uint16_t>(y(0, 1)) == 0xC0D0u);
  CHECK(static_cast<std::uint16_t>(y(1, 1)) == 0xA0B0u);
  auto const b = pltpu::bitcast<std::int8_t>(x);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(b)>, pl::block<std::int8_t, pl::shape<4, 2>>>);
  CHECK(b(0, 0) == 0x44);
  CHECK(b(1, 0) == 0x33);
  CHECK(b(2, 0) == 0x22);
  CHECK(b(3, 0) == 0x11);
}

TEST_CASE("pltpu::bitcast: round trips, leading dimensions, views", "[tpu][bitcast]") {
  using S = pl::shape<3, 16, 128>;
  pl::block<float, S> x = (pl::iota<float, S>(2) - 60.25f) * (pl::iota<float, S>(0) + 1) + pl::iota<float, S>(1) / 8;
  auto const h = pltpu::bitcast<pl::bfloat16>(x);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(h)>, pl::block<pl::bfloat16, pl::shape<3, 32, 128>>>);
  // element (l, 2 i + k, j) is half k of x(l, i, j)
  int wrong = 0;
  for (index_t l = 0; l < 3; ++l)
    for (index_t i = 0; i < 16; ++i)
      for (index_t j = 0; j < 128; ++j) {
        auto const bits = std::bit_cast<std::uint32_t>(x(l, i, j));
        wrong += h(l, 2 * i, j).bits() != (bits & 0xFFFFu);
        wrong += h(l, 2 * i + 1, j).bits() != (bits >> 16);
      }
  CHECK(wrong == 0);
  auto const back = pltpu::bitcast<float>(h);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(back)>, pl::block<float, S>>);
  wrong = 0;
  for (index_t i = 0; i < back.size(); ++i) wrong += std::bit_cast<std::uint32_t>(back.data()[i]) != std::bit_cast<std::uint32_t>(x.data()[i]);
  CHECK(wrong == 0);
  // a strided view as the operand (the transpose of a (128, 16) buffer)
  pl::block<std::int32_t, pl::shape<128, 16>> t = pl::iota<std::int32_t, pl::shape<128, 16>>(0) * 16 + pl::iota<std::int32_t, pl::shape<128, 16>>(1);
  auto const tb = pltpu::bitcast<std::int8_t>(pl::transpose(t[pl::ellipsis]));
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(tb)>, pl::block<std::int8_t, pl::shape<64, 128>>>);
  wrong = 0;
  for (index_t i = 0; i < 16; ++i)
    for (index_t j = 0; j < 128; ++j)
      for (index_t k = 0; k < 4; ++k)
        wrong += static_cast<std::uint8_t>(tb(4 * i + k, j)) != ((static_cast<std::uint32_t>(t(j, i)) >> (8 * k)) & 0xFFu);
  CHECK(wrong == 0);
}

TEST_CASE("pltpu::repeat tiles the value along one axis, as jnp.tile", "[tpu][repeat]") {
  using S = pl::shape<2, 3, 4>;
  pl::block<std::int32_t, S> x = pl::iota<std::int32_t, S>(0) * 100 + pl::iota<std::int32_t, S>(1) * 10 + pl::iota<std::int32_t, S>(2);
  auto check = [&](auto const& r, int axis, index_t n) {
    int wrong = 0;
    for (index_t a = 0; a < r.extent(0); ++a)
      for (index_t b = 0; b < r.extent(1); ++b)
        for (index_t c = 0; c < r.extent(2); ++c) {
          index_t const i = axis == 0 ? a % n : a, j = axis == 1 ? b % n : b, k = axis == 2 ? c % n : c;
          wrong += r(a, b, c) != x(i, j, k);
        }
    return wrong;
  };
  pl::block<std::int32_t, pl::shape<6, 3, 4>> r0 = pltpu::repeat(x, pl::c<3>, pl::axis<0>);
  pl::block<std::int32_t, pl::shape<2, 6, 4>> r1 = pltpu::repeat(x[pl::ellipsis], pl::c<2>, pl::axis<1>);
  pl::block<std::int32_t, pl::shape<2, 3, 8>> r2 = pltpu::repeat(x, pl::c<2>, pl::axis<-1>);
  pl::block<std::int32_t, S> same = pltpu::repeat(x, pl::c<1>, pl::axis<1>);
  CHECK(check(r0, 0, 2) == 0);
  CHECK(check(r1, 1, 3) == 0);
  CHECK(check(r2, 2, 4) == 0);
  CHECK(check(same, 1, 3) == 0);
  CHECK(r2(1, 2, 0) == 120);
  CHECK(r2(1, 2, 5) == 121);  // tiled: [0 1 2 3 0 1 2 3], not jnp.repeat's [0 0 1 1 ...]
  // a size-1 axis repeated is a broadcast; the result is lazy and composes
  pl::block<float, pl::shape<4, 1>> col = pl::iota<float, pl::shape<4, 1>>(0);
  pl::block<float, pl::shape<4, 128>> wide = pltpu::repeat(col, pl::c<128>, pl::axis<1>) * 2 + 1;
  int wrong = 0;
  for (index_t i = 0; i < 4; ++i)
    for (index_t j = 0; j < 128; ++j) wrong += wide(i, j) != static_cast<float>(2 * i + 1);
  CHECK(wrong == 0);
}

TEST_CASE("pltpu::repeat of the destination's own rows goes through a temporary", "[tpu][repeat]") {
  pl::block<float, pl::shape<4, 8>> x = pl::iota<float, pl::shape<4, 8>>(0) * 8 + pl::iota<float, pl::shape<4, 8>>(1);
  pl::block<float, pl::shape<4, 8>> const orig = x;
  x[pl::ellipsis] = pltpu::repeat(x.at(pl::ds<2>(pl::c<1>))[pl::ellipsis], pl::c<2>, pl::axis<0>);  // rows 1 2 1 2
  int wrong = 0;
  for (index_t i = 0; i < 4; ++i)
    for (index_t j = 0; j < 8; ++j) wrong += x(i, j) != orig(1 + i % 2, j);
  CHECK(wrong == 0);
}
