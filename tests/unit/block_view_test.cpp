// Reading and writing VMEM blocks: ref[pl::ellipsis], sub-views, assignments, aliasing,
// pl::load / pl::store, SMEM scalars, and the owning pl::block value. References are
// naive loops over the same buffers; all values are exact (integers and small floats).
#include <catch2/catch.hpp>

#include <cstdint>
#include <memory>
#include <sstream>
#include <type_traits>

// Only the block-compute headers: cheaper to compile than pallas.hpp.
#include <pallas/block_view.hpp>
#include <pallas/expr/creation.hpp>
#include <pallas/expr/elementwise.hpp>
#include <pallas/expr/load_store.hpp>
#include <pallas/expr/reduction.hpp>
#include <pallas/expr/shape_ops.hpp>

namespace pl = pallas;

namespace {

using pl::index_t;

template <class T, index_t R, index_t C>
struct buf {
  using S = pl::shape<R, C>;
  std::unique_ptr<T[]> mem{new T[R * C]{}};
  explicit buf(T start = T(0)) {
    for (index_t i = 0; i < R * C; ++i) mem[i] = static_cast<T>(start + static_cast<T>(i));
  }
  pl::Ref<T, S, pl::memory_space::vmem> ref() const { return {mem.get(), S{}}; }
  T& operator()(index_t i, index_t j) { return mem[i * C + j]; }
};

}  // namespace

TEST_CASE("ref[...] reads the block and assigning stores it", "[block_view]") {
  buf<float, 4, 8> x(1.0f), y(100.0f), o;
  auto xr = x.ref();
  auto yr = y.ref();
  auto orf = o.ref();
  orf[pl::ellipsis] = xr[pl::ellipsis] * 2 + yr[pl::ellipsis];
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 8; ++j) CHECK(o(i, j) == x(i, j) * 2 + y(i, j));
  STATIC_REQUIRE(std::is_same_v<decltype(xr[pl::ellipsis])::shape_type, pl::shape<4, 8>>);
  STATIC_REQUIRE(std::is_same_v<decltype(xr[pl::ellipsis])::value_type, float>);
  // the element form still works beside the block form
  CHECK(xr(2, 3) == x(2, 3));
  // a scalar store fills the block
  orf[pl::ellipsis] = 0;
  for (int i = 0; i < 32; ++i) CHECK(o.mem[i] == 0.0f);
}

TEST_CASE("compound assignments", "[block_view]") {
  buf<std::int32_t, 2, 8> a(5), b(1);
  auto ar = a.ref();
  auto br = b.ref();
  buf<std::int32_t, 2, 8> ref(5);
  auto check = [&](auto f) {
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 8; ++j) f(ref(i, j), b(i, j));
    for (int k = 0; k < 16; ++k) CHECK(a.mem[k] == ref.mem[k]);
  };
  ar[pl::ellipsis] += br[pl::ellipsis];
  check([](auto& r, auto v) { r += v; });
  ar[pl::ellipsis] -= 3;
  check([](auto& r, auto) { r -= 3; });
  ar[pl::ellipsis] *= br[pl::ellipsis];
  check([](auto& r, auto v) { r *= v; });
  ar[pl::ellipsis] /= 4;  // floor division; the values are positive
  check([](auto& r, auto) { r /= 4; });
  ar[pl::ellipsis] %= 7;
  check([](auto& r, auto) { r %= 7; });
  ar[pl::ellipsis] <<= 2;
  check([](auto& r, auto) { r <<= 2; });
  ar[pl::ellipsis] >>= 1;
  check([](auto& r, auto) { r >>= 1; });
  ar[pl::ellipsis] |= br[pl::ellipsis];
  check([](auto& r, auto v) { r |= v; });
  ar[pl::ellipsis] &= 0x1F;
  check([](auto& r, auto) { r &= 0x1F; });
  ar[pl::ellipsis] ^= br[pl::ellipsis];
  check([](auto& r, auto v) { r ^= v; });
  // f32 += bf16 keeps f32 (promote(f32, bf16) = f32)
  buf<float, 1, 4> acc(0.5f);
  pl::block<pl::bfloat16, pl::shape<1, 4>> h = pl::full<pl::bfloat16, pl::shape<1, 4>>(2);
  acc.ref()[pl::ellipsis] += h;
  CHECK(acc(0, 3) == 5.5f);
}

TEST_CASE("sub-views: .at rows, columns and strided blocks are read and written in place",
          "[block_view]") {
  buf<float, 8, 16> x;
  auto xr = x.ref();
  // rows 2..5, all columns: contiguous rows
  auto rows = xr.at(pl::ds<4>(2), pl::full_extent);
  rows[pl::ellipsis] = rows[pl::ellipsis] + 1000;
  // one column: a rank-1 strided view
  auto col = xr.at(pl::full_extent, 3);
  STATIC_REQUIRE(std::is_same_v<decltype(col[pl::ellipsis])::shape_type, pl::shape<8>>);
  col[pl::ellipsis] = pl::arange<float, 8>() * -1;
  // a 4 x 4 window with a dynamic start
  index_t const r0 = 4, c0 = 8;
  auto win = xr.at(pl::ds<4>(r0), pl::ds<4>(c0));
  win[pl::ellipsis] *= 2;
  // row i of the ref as a block: ref[i]
  auto r7 = xr[7];
  STATIC_REQUIRE(std::is_same_v<decltype(r7)::shape_type, pl::shape<16>>);
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 16; ++j) {
      float want = float(i * 16 + j);
      if (i >= 2 && i < 6) want += 1000;
      if (j == 3) want = -float(i);
      if (i >= 4 && j >= 8 && j < 12) want *= 2;
      INFO(i << ", " << j);
      CHECK(x(i, j) == want);
    }
  auto row_sum = pl::sum(r7);
  float s = 0;
  for (int j = 0; j < 16; ++j) s += x(7, j);
  CHECK(static_cast<float>(row_sum) == s);
}

TEST_CASE("aliasing: same-index reads need no copy, shifted or transposed reads are safe",
          "[block_view]") {
  SECTION("x = x + 1 and x = x * x") {
    buf<std::int32_t, 4, 4> x;
    auto v = x.ref()[pl::ellipsis];
    v = v + 1;
    v = v * v;
    for (int i = 0; i < 16; ++i) CHECK(x.mem[i] == (i + 1) * (i + 1));
  }
  SECTION("x = transpose(x)") {
    buf<std::int32_t, 4, 4> x;
    x.ref()[pl::ellipsis] = pl::transpose(x.ref()[pl::ellipsis]);
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) CHECK(x(i, j) == j * 4 + i);
  }
  SECTION("x = x + x[0] (a broadcast row of the destination)") {
    buf<std::int32_t, 3, 4> x;
    auto xr = x.ref();
    xr[pl::ellipsis] = xr[pl::ellipsis] + xr.at(pl::ds<1>(0), pl::full_extent)[pl::ellipsis];
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 4; ++j) CHECK(x(i, j) == (i * 4 + j) + j);
  }
  SECTION("overlapping shifted views: x[1:] = x[:-1]") {
    buf<std::int32_t, 1, 8> x;
    auto flat = x.ref().at(0);
    flat.at(pl::ds<7>(1))[pl::ellipsis] = flat.at(pl::ds<7>(0))[pl::ellipsis];
    std::int32_t const want[8] = {0, 0, 1, 2, 3, 4, 5, 6};
    for (int j = 0; j < 8; ++j) CHECK(x(0, j) == want[j]);
  }
  SECTION("x = roll(x)") {
    buf<std::int32_t, 2, 5> x;
    auto v = x.ref()[pl::ellipsis];
    v = pl::roll(v, 2, pl::axis<1>);
    std::int32_t const want[10] = {3, 4, 0, 1, 2, 8, 9, 5, 6, 7};
    for (int k = 0; k < 10; ++k) CHECK(x.mem[k] == want[k]);
  }
}

TEST_CASE("a view is a view: auto v = x[...] reads x when evaluated (the Eigen gotcha)",
          "[block_view]") {
  buf<float, 2, 2> x(1.0f);
  auto xr = x.ref();
  auto view = xr[pl::ellipsis];   // a view, no copy
  auto value = pl::load(xr);      // a copy
  auto also_value = pl::eval(xr[pl::ellipsis]);
  auto lazy = view * 10;          // still reads x later
  x(0, 0) = 42.0f;
  CHECK(pl::eval(view)(0, 0) == 42.0f);
  CHECK(pl::eval(lazy)(0, 0) == 420.0f);
  CHECK(value(0, 0) == 1.0f);
  CHECK(also_value(0, 0) == 1.0f);
  STATIC_REQUIRE(std::is_same_v<decltype(value), pl::block<float, pl::shape<2, 2>>>);
}

TEST_CASE("pl::load and pl::store", "[block_view]") {
  buf<std::int32_t, 4, 8> x, o;
  auto v = pl::load(x.ref());
  CHECK(v(3, 7) == 31);
  auto part = pl::load(x.ref(), pl::ds<2>(1), pl::full_extent);
  STATIC_REQUIRE(std::is_same_v<decltype(part)::shape_type, pl::shape<2, 8>>);
  CHECK(part(0, 0) == 8);
  pl::store(o.ref(), v * 3);
  CHECK(o(2, 5) == 3 * 21);
  pl::store(o.ref().at(pl::ds<1>(0), pl::full_extent), pl::zeros<std::int32_t, pl::shape<1, 8>>());
  CHECK(o(0, 4) == 0);
  CHECK(o(1, 4) == 36);
  // a rank-0 VMEM load gives a scalar
  std::int32_t const e = pl::load(x.ref(), 1, 2);
  CHECK(e == 10);
}

TEST_CASE("SMEM refs give and take scalars", "[block_view]") {
  std::int32_t mem[4] = {3, 1, 4, 1};
  pl::Ref<std::int32_t, pl::shape<4>, pl::memory_space::smem> s(mem, pl::shape<4>{});
  std::int32_t const v = pl::load(s, 2);
  CHECK(v == 4);
  pl::store(s.at(1), v + 10);
  CHECK(mem[1] == 14);
  CHECK(s[3] == 1);  // element access
  // an SMEM scalar scales a VMEM block (a weak scalar: the block keeps its dtype)
  buf<pl::bfloat16, 1, 4> x(pl::bfloat16(1.0f));
  auto y = pl::eval(x.ref()[pl::ellipsis] * pl::load(s, 0));
  STATIC_REQUIRE(std::is_same_v<decltype(y)::value_type, pl::bfloat16>);
  CHECK(static_cast<float>(y(0, 3)) == 12.0f);
}

TEST_CASE("refs of const elements can be read", "[block_view]") {
  float mem[6] = {1, 2, 3, 4, 5, 6};
  pl::Ref<float const, pl::shape<2, 3>, pl::memory_space::vmem> c(mem, pl::shape<2, 3>{});
  auto total = pl::sum(c[pl::ellipsis] * 2);
  CHECK(static_cast<float>(total) == 42.0f);
}

TEST_CASE("pl::block: an owning value", "[block]") {
  using B = pl::block<float, pl::shape<2, 3>>;
  B zero;
  for (float v : zero) CHECK(v == 0.0f);
  B a = pl::iota<float, pl::shape<2, 3>>(1) + 1;
  B b = a;  // a deep copy
  b(0, 0) = 9.0f;
  CHECK(a(0, 0) == 1.0f);
  a += b;
  CHECK(a(0, 0) == 10.0f);
  CHECK(a(1, 2) == 6.0f);
  a = a * 0 + 7;
  CHECK(a(1, 1) == 7.0f);
  // element access is bounds checked in checked mode
  CHECK_THROWS_AS(a(2, 0), pl::index_error);
  // a block reads and writes through ref() and [pl::ellipsis] too
  a[pl::ellipsis] = 1.5f;
  CHECK(a.ref()(1, 2) == 1.5f);
  a.ref().at(0)[pl::ellipsis] = pl::arange<float, 3>();
  CHECK(a(0, 2) == 2.0f);
  CHECK(a(1, 2) == 1.5f);
  // rank 0: item() and conversion
  auto s = pl::sum(a);
  STATIC_REQUIRE(std::is_same_v<decltype(s), pl::block<float, pl::shape<>>>);
  float const total = s;
  CHECK(total == 7.5f);
  CHECK(s.item() == 7.5f);
  // printing, numpy style
  std::ostringstream out;
  out << pl::eval(pl::iota<std::int32_t, pl::shape<2, 2>>(1)) << ' ' << pl::eval(pl::arange<bool, 2>());
  CHECK(out.str() == "[[0, 1],\n [0, 1]] [False, True]");
}

TEST_CASE("values owned by temporaries live as long as the expression", "[block]") {
  buf<float, 2, 4> x(1.0f);
  // pl::eval(...) is a temporary block: the expression keeps its memory alive
  auto e = pl::eval(x.ref()[pl::ellipsis] * 2) + pl::sum(x.ref()[pl::ellipsis], pl::axis<1>, pl::keepdims);
  x(0, 0) = -100.0f;  // the evaluated parts do not see this
  auto v = pl::eval(e);
  CHECK(v(0, 0) == 2.0f + (1 + 2 + 3 + 4));
  CHECK(v(1, 3) == 16.0f + (5 + 6 + 7 + 8));
  // moving a block into an expression does not copy it and keeps it alive
  pl::block<float, pl::shape<2, 4>> owned = pl::load(x.ref());
  auto f = std::move(owned) * 3;
  CHECK(pl::eval(f)(1, 0) == 15.0f);
}

TEST_CASE(".eval() and .astype<U>() members", "[block]") {
  buf<float, 2, 2> x(0.75f);
  auto v = (x.ref()[pl::ellipsis] * 2).eval();
  STATIC_REQUIRE(std::is_same_v<decltype(v), pl::block<float, pl::shape<2, 2>>>);
  CHECK(v(1, 1) == 7.5f);
  auto i = x.ref()[pl::ellipsis].astype<std::int32_t>().eval();
  CHECK(i(0, 0) == 0);
  CHECK(i(1, 1) == 3);
}
