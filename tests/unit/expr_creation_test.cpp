// Creation: full, zeros, ones, *_like, arange, iota, against hand-written expectations.
#include <catch2/catch.hpp>

#include <cstdint>
#include <type_traits>

// Only the block-compute headers: cheaper to compile than pallas.hpp.
#include <pallas/block_view.hpp>
#include <pallas/expr/creation.hpp>
#include <pallas/expr/elementwise.hpp>

namespace pl = pallas;

TEST_CASE("full, zeros, ones", "[expr][creation]") {
  auto f = pl::eval(pl::full<pl::bfloat16, pl::shape<2, 3>>(1.5));
  STATIC_REQUIRE(std::is_same_v<decltype(f), pl::block<pl::bfloat16, pl::shape<2, 3>>>);
  for (auto v : f) CHECK(static_cast<float>(v) == 1.5f);
  // the dtype of the value when none is given: weak float -> f32, int -> i32, bool -> bool
  STATIC_REQUIRE(std::is_same_v<decltype(pl::full<pl::shape<4>>(2.0))::value_type, float>);
  STATIC_REQUIRE(std::is_same_v<decltype(pl::full<pl::shape<4>>(2))::value_type, std::int32_t>);
  STATIC_REQUIRE(std::is_same_v<decltype(pl::full<pl::shape<4>>(true))::value_type, bool>);
  STATIC_REQUIRE(std::is_same_v<decltype(pl::full<pl::shape<4>>(pl::float16(1.0f)))::value_type, pl::float16>);
  auto z = pl::eval(pl::zeros<std::int8_t, pl::shape<3>>());
  auto o = pl::eval(pl::ones<std::uint32_t, pl::shape<2, 2, 2>>());
  for (auto v : z) CHECK(v == 0);
  for (auto v : o) CHECK(v == 1u);
  // astype semantics for the fill value
  auto t = pl::eval(pl::full<std::int32_t, pl::shape<2>>(-2.7f));
  CHECK(t(0) == -2);
  auto w = pl::eval(pl::full<std::int8_t, pl::shape<2>>(300));
  CHECK(w(1) == 44);
}

TEST_CASE("full_like, zeros_like, ones_like take refs of any memory space and values",
          "[expr][creation]") {
  float mem[8] = {};
  pl::Ref<float, pl::shape<2, 4>, pl::memory_space::vmem> v(mem, pl::shape<2, 4>{});
  pl::Ref<float, pl::shape<2, 4>, pl::memory_space::hbm> h(mem, pl::shape<2, 4>{});
  v[pl::ellipsis] = pl::full_like(v, 42);
  for (float x : mem) CHECK(x == 42.0f);
  auto z = pl::eval(pl::zeros_like(h));
  STATIC_REQUIRE(std::is_same_v<decltype(z), pl::block<float, pl::shape<2, 4>>>);
  auto i = pl::eval(pl::ones_like<std::int32_t>(v[pl::ellipsis] * 2));
  STATIC_REQUIRE(std::is_same_v<decltype(i), pl::block<std::int32_t, pl::shape<2, 4>>>);
  CHECK(i(1, 3) == 1);
  auto b = pl::eval(pl::full_like<bool>(z, 1));
  CHECK(b(0, 0));
}

TEST_CASE("arange", "[expr][creation]") {
  auto a = pl::eval(pl::arange<float, 128>());
  STATIC_REQUIRE(std::is_same_v<decltype(a), pl::block<float, pl::shape<128>>>);
  for (int i = 0; i < 128; ++i) CHECK(a(i) == float(i));
  auto b = pl::eval(pl::arange<std::int32_t, 3, 12, 4>());  // 3, 7, 11
  STATIC_REQUIRE(std::is_same_v<decltype(b)::shape_type, pl::shape<3>>);
  CHECK(b(0) == 3);
  CHECK(b(2) == 11);
  auto c = pl::eval(pl::arange<std::int8_t, 10, 0, -3>());  // 10, 7, 4, 1
  STATIC_REQUIRE(std::is_same_v<decltype(c)::shape_type, pl::shape<4>>);
  CHECK(c(3) == 1);
  auto d = pl::eval(pl::arange<5>());
  STATIC_REQUIRE(std::is_same_v<decltype(d)::value_type, std::int32_t>);
  CHECK(d(4) == 4);
  auto e = pl::eval(pl::arange<float, 5, 5>());
  STATIC_REQUIRE(std::is_same_v<decltype(e)::shape_type, pl::shape<0>>);
  auto h = pl::eval(pl::arange<pl::bfloat16, 300>());
  CHECK(static_cast<float>(h(257)) == 256.0f);  // 257 is not a bf16: ties to even
}

TEST_CASE("iota along each axis (lax.broadcasted_iota)", "[expr][creation]") {
  using S = pl::shape<2, 3, 4>;
  auto i0 = pl::eval(pl::iota<std::int32_t, S>(0));
  auto i1 = pl::eval(pl::iota<std::int32_t, S>(pl::axis<1>));
  auto i2 = pl::eval(pl::iota<float, S>(-1));
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 3; ++b)
      for (int c = 0; c < 4; ++c) {
        CHECK(i0(a, b, c) == a);
        CHECK(i1(a, b, c) == b);
        CHECK(i2(a, b, c) == float(c));
      }
  CHECK_THROWS_AS((pl::iota<float, S>(3)), pl::index_error);
  CHECK_THROWS_AS((pl::iota<float, S>(-4)), pl::index_error);
  // an iota mask, as kernels build them
  auto mask = pl::eval(pl::iota<std::int32_t, pl::shape<4, 4>>(0) >= pl::iota<std::int32_t, pl::shape<4, 4>>(1));
  CHECK(mask(2, 1));
  CHECK(!mask(1, 2));
}
