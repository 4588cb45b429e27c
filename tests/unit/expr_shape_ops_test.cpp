// Shape operations against index arithmetic written here (all values exact).
#include <catch2/catch.hpp>

#include <cstdint>
#include <type_traits>

// Only the block-compute headers: cheaper to compile than pallas.hpp.
#include <pallas/block_view.hpp>
#include <pallas/expr/astype.hpp>
#include <pallas/expr/creation.hpp>
#include <pallas/expr/elementwise.hpp>
#include <pallas/expr/shape_ops.hpp>

namespace pl = pallas;

namespace {

template <pl::index_t... D>
pl::block<std::int32_t, pl::shape<D...>> counting() {
  pl::block<std::int32_t, pl::shape<D...>> b;
  std::int32_t k = 0;
  for (auto& v : b) v = k++;
  return b;
}

}  // namespace

TEST_CASE("transpose", "[expr][shape]") {
  auto x = counting<3, 4>();
  auto t = pl::transpose(x).eval();
  STATIC_REQUIRE(std::is_same_v<decltype(t)::shape_type, pl::shape<4, 3>>);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) CHECK(t(j, i) == x(i, j));
  auto y = counting<2, 3, 4>();
  auto p = pl::transpose<1, 0, 2>(y).eval();
  auto q = pl::transpose<-1, 0, 1>(y).eval();
  auto r = pl::transpose(y).eval();  // reversed: (4, 3, 2)
  STATIC_REQUIRE(std::is_same_v<decltype(p)::shape_type, pl::shape<3, 2, 4>>);
  STATIC_REQUIRE(std::is_same_v<decltype(q)::shape_type, pl::shape<4, 2, 3>>);
  STATIC_REQUIRE(std::is_same_v<decltype(r)::shape_type, pl::shape<4, 3, 2>>);
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 3; ++b)
      for (int c = 0; c < 4; ++c) {
        CHECK(p(b, a, c) == y(a, b, c));
        CHECK(q(c, a, b) == y(a, b, c));
        CHECK(r(c, b, a) == y(a, b, c));
      }
  // of a lazy expression
  auto u = pl::transpose(x * 2 + 1).eval();
  CHECK(u(3, 2) == x(2, 3) * 2 + 1);
}

TEST_CASE("reshape, with an inferred extent and of non-contiguous values", "[expr][shape]") {
  auto x = counting<4, 6>();
  auto r = pl::reshape<2, -1, 3>(x).eval();
  STATIC_REQUIRE(std::is_same_v<decltype(r)::shape_type, pl::shape<2, 4, 3>>);
  for (int k = 0; k < 24; ++k) CHECK(r.data()[k] == k);
  // a transposed view is not contiguous: reshape reads it in row-major order
  auto t = pl::reshape<24>(pl::transpose(x)).eval();
  for (int k = 0; k < 24; ++k) CHECK(t(k) == x(k % 4, k / 4));
  auto s = pl::reshape<1, 4, 6>(x.ref().at(pl::full_extent, pl::full_extent)[pl::ellipsis]).eval();
  CHECK(s(0, 3, 5) == 23);
}

TEST_CASE("broadcast_to", "[expr][shape]") {
  auto row = counting<4>();
  auto b = pl::broadcast_to<3, 4>(row).eval();
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) CHECK(b(i, j) == j);
  auto col = counting<3, 1>();
  auto c = pl::broadcast_to<2, 3, 5>(col * 10).eval();
  for (int a = 0; a < 2; ++a)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 5; ++j) CHECK(c(a, i, j) == 10 * i);
}

TEST_CASE("slice with integers, static and dynamic starts, full_extent and ellipsis",
          "[expr][shape]") {
  auto x = counting<4, 6, 8>();
  pl::index_t const start = 2;
  auto s = pl::slice(x, 1, pl::ds<3>(start), pl::full_extent).eval();
  STATIC_REQUIRE(std::is_same_v<decltype(s)::shape_type, pl::shape<3, 8>>);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 8; ++j) CHECK(s(i, j) == x(1, 2 + i, j));
  auto e = pl::slice(x, pl::ellipsis, pl::ds<2>(pl::c<6>)).eval();
  STATIC_REQUIRE(std::is_same_v<decltype(e)::shape_type, pl::shape<4, 6, 2>>);
  CHECK(e(3, 5, 1) == x(3, 5, 7));
  auto l = pl::slice(x * 2, 3, 5, 7).eval();  // of a lazy expression, down to a scalar
  CHECK(l.item() == 2 * x(3, 5, 7));
  CHECK_THROWS_AS(pl::slice(x, pl::ds<3>(start + 3)), pl::index_error);
  CHECK_THROWS_AS(pl::slice(x, 4), pl::index_error);
}

TEST_CASE("concatenate along an axis, with dtype promotion", "[expr][shape]") {
  auto a = counting<2, 3>();
  auto b = pl::eval(counting<2, 2>() * 100);
  auto c = pl::concatenate<1>(a, b);
  STATIC_REQUIRE(std::is_same_v<decltype(c), pl::block<std::int32_t, pl::shape<2, 5>>>);
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 3; ++j) CHECK(c(i, j) == a(i, j));
    for (int j = 0; j < 2; ++j) CHECK(c(i, 3 + j) == b(i, j));
  }
  auto d = pl::concatenate(a, a * 2, pl::astype<float>(a) / 2);  // axis 0, promoted to f32
  STATIC_REQUIRE(std::is_same_v<decltype(d), pl::block<float, pl::shape<6, 3>>>);
  CHECK(d(3, 2) == 10.0f);
  CHECK(d(5, 1) == 2.0f);
  auto e = pl::concatenate<-1>(pl::arange<float, 2>(), pl::arange<float, 3>());
  STATIC_REQUIRE(std::is_same_v<decltype(e)::shape_type, pl::shape<5>>);
  CHECK(e(4) == 2.0f);
}

TEST_CASE("roll along each axis with any shift (jnp.roll, pltpu.roll)", "[expr][shape]") {
  auto x = counting<3, 5>();
  for (int shift : {0, 1, 4, 5, 7, -1, -6}) {
    auto r1 = pl::roll(x, shift, pl::axis<1>).eval();
    auto r0 = pl::roll(x, shift, pl::axis<0>).eval();
    auto rl = pl::roll(x * 1, shift, pl::axis<-1>).eval();
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 5; ++j) {
        INFO("shift " << shift);
        CHECK(r1(i, j) == x(i, ((j - shift) % 5 + 5) % 5));
        CHECK(r0(i, j) == x(((i - shift) % 3 + 3) % 3, j));
        CHECK(rl(i, j) == r1(i, j));
      }
  }
}
