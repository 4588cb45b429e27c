// pl::Array (constructors, copies, element access, equality, allclose, numpy-style
// printing) and pl::ShapeDtypeStruct / pl::like. References: hand-written values, naive
// loops, and numpy's printed output (with C++'s number formatting).
#include <pallas/pallas.hpp>

#include <catch2/catch.hpp>

#include "../support/error_of.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace pl = pallas;

namespace {

using pallas_test::error_of;

template <class T>
std::string printed(T const& value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

template <class A>
bool all_equal(A const& a, typename A::value_type v) {
  for (auto const& x : a)
    if (!(x == v)) return false;
  return true;
}

}  // namespace

TEST_CASE("Array: default construction is zeros, 64-byte aligned", "[array]") {
  pl::Array<float, 2, 3> const a;
  STATIC_REQUIRE(decltype(a)::rank() == 2);
  STATIC_REQUIRE(std::is_same_v<decltype(a)::shape_type, pl::shape<2, 3>>);
  CHECK(a.size() == 6);
  CHECK(a.extent(0) == 2);
  CHECK(a.extent(1) == 3);
  CHECK(all_equal(a, 0.0f));
  CHECK(reinterpret_cast<std::uintptr_t>(a.data()) % 64 == 0);
  CHECK(a.end() - a.begin() == 6);

  pl::Array<std::int32_t, 1000> const big;
  CHECK(all_equal(big, 0));
  pl::Array<bool, 4> const flags;
  CHECK(all_equal(flags, false));
}

TEST_CASE("Array: initializer list in row-major order", "[array]") {
  pl::Array<int, 2, 3> const a{1, 2, 3, 4, 5, 6};
  int expected = 1;
  for (pl::index_t i = 0; i < 2; ++i)
    for (pl::index_t j = 0; j < 3; ++j) CHECK(a(i, j) == expected++);
  auto const msg = error_of<pl::shape_error>([] { pl::Array<int, 2, 3> b{1, 2, 3}; (void)b; });
  CHECK_THAT(msg, Catch::Contains("3 values"));
  CHECK_THAT(msg, Catch::Contains("(2, 3)"));
  CHECK_THROWS_AS((pl::Array<int, 2>{1, 2, 3}), pl::shape_error);
}

TEST_CASE("Array: full", "[array]") {
  auto const a = pl::Array<std::int32_t, 3, 4>::full(7);
  CHECK(a.size() == 12);
  CHECK(all_equal(a, 7));
  auto const d = pl::Array<float, pl::dyn, 4>::full(2.5f, 3);
  CHECK(d.extent(0) == 3);
  CHECK(d.size() == 12);
  CHECK(all_equal(d, 2.5f));
  auto const nan = pl::Array<float, 5>::full(std::numeric_limits<float>::quiet_NaN());
  for (float x : nan) CHECK(std::isnan(x));
}

TEST_CASE("Array: from a span", "[array]") {
  std::vector<double> values(6);
  std::iota(values.begin(), values.end(), 10.0);
  auto const a = pl::Array<double, 2, 3>::from(values);
  CHECK(a(0, 0) == 10.0);
  CHECK(a(1, 2) == 15.0);
  CHECK(a.data() != values.data());  // copied

  auto const d = pl::Array<double, pl::dyn, 2>::from(values, 3);
  CHECK(d.extent(0) == 3);
  CHECK(d(2, 1) == 15.0);

  auto const msg = error_of<pl::shape_error>([&] { (void)pl::Array<double, 4, 2>::from(values); });
  CHECK_THAT(msg, Catch::Contains("6 values"));
  CHECK_THAT(msg, Catch::Contains("8 elements"));
  CHECK_THROWS_AS((pl::Array<double, pl::dyn>::from(values, 5)), pl::shape_error);
}

TEST_CASE("Array: generate calls f with every multi-index", "[array]") {
  auto const a = pl::Array<int, 3, 4>::generate([](pl::index_t i, pl::index_t j) { return 10 * i + j; });
  for (pl::index_t i = 0; i < 3; ++i)
    for (pl::index_t j = 0; j < 4; ++j) CHECK(a(i, j) == 10 * i + j);

  auto const b = pl::Array<float, 2, pl::dyn, 3>::generate(
      [](pl::index_t i, pl::index_t j, pl::index_t k) { return static_cast<float>(100 * i + 10 * j + k); }, 5);
  CHECK(b.extent(1) == 5);
  // Flat order is row-major: element n is at (n / 15, n / 3 % 5, n % 3).
  for (pl::index_t n = 0; n < b.size(); ++n)
    CHECK(b.data()[n] == static_cast<float>(100 * (n / 15) + 10 * (n / 3 % 5) + n % 3));

  auto const iota = pl::Array<float, 128>::generate([](pl::index_t i) { return i; });
  for (pl::index_t i = 0; i < 128; ++i) CHECK(iota(i) == static_cast<float>(i));
}

TEST_CASE("Array: run-time extents", "[array]") {
  pl::Array<float, pl::dyn, 128> const a(8);
  CHECK(a.extent(0) == 8);
  CHECK(a.extent(1) == 128);
  CHECK(a.size() == 1024);
  CHECK(all_equal(a, 0.0f));
  pl::Array<int, pl::dyn, pl::dyn> const b(pl::shape<pl::dyn, pl::dyn>(3, 5));
  CHECK(b.size() == 15);
  pl::Array<int, pl::dyn> const empty(0);
  CHECK(empty.size() == 0);
  CHECK(empty.begin() == empty.end());
  CHECK_THROWS_AS((pl::Array<int, pl::dyn>(-2)), pl::shape_error);
}

TEST_CASE("Array: copies are deep, moves steal", "[array]") {
  auto a = pl::Array<int, pl::dyn>::generate([](pl::index_t i) { return static_cast<int>(i); }, 10);
  pl::Array<int, pl::dyn> b = a;
  CHECK(b == a);
  CHECK(b.data() != a.data());
  b(3) = -1;
  CHECK(a(3) == 3);

  pl::Array<int, pl::dyn> c(2);
  c = a;  // copy assignment takes the other's shape too
  CHECK(c.size() == 10);
  CHECK(c == a);
  CHECK(c.data() != a.data());
  auto const& same = c;
  c = same;  // self-assignment keeps the contents
  CHECK(c == a);

  int const* storage = a.data();
  pl::Array<int, pl::dyn> d = std::move(a);
  CHECK(d.data() == storage);
  CHECK(d(9) == 9);
  pl::Array<int, pl::dyn> e(1);
  e = std::move(d);
  CHECK(e.data() == storage);
  CHECK(e.size() == 10);
  STATIC_REQUIRE(std::is_nothrow_move_constructible_v<pl::Array<int, pl::dyn>>);
  STATIC_REQUIRE(std::is_nothrow_move_assignable_v<pl::Array<int, 4>>);
}

TEST_CASE("Array: element access is bounds-checked", "[array]") {
  pl::Array<float, 2, 3> a;
  a(1, 2) = 4.0f;
  CHECK(a.data()[5] == 4.0f);
  CHECK(std::as_const(a)(1, 2) == 4.0f);
  CHECK(a(pl::c<1>, 2) == 4.0f);

  auto const msg = error_of<pl::index_error>([&] { (void)a(2, 0); });
  CHECK_THAT(msg, Catch::Contains("index 2"));
  CHECK_THAT(msg, Catch::Contains("dimension 0"));
  CHECK_THAT(msg, Catch::Contains("extent 2"));
  auto const msg1 = error_of<pl::index_error>([&] { (void)std::as_const(a)(0, 3); });
  CHECK_THAT(msg1, Catch::Contains("dimension 1"));
  CHECK_THAT(msg1, Catch::Contains("extent 3"));
  CHECK_THROWS_AS(a(-1, 0), pl::index_error);
  CHECK_THROWS_AS(a(0, -1), pl::index_error);
  pl::Array<float, pl::dyn> d(4);
  CHECK_THROWS_AS(d(4), pl::index_error);
  CHECK_NOTHROW(d(3));
}

TEST_CASE("Array: operator== compares shape and every element", "[array]") {
  pl::Array<int, 2, 2> const a{1, 2, 3, 4};
  pl::Array<int, 2, 2> b{1, 2, 3, 4};
  CHECK(a == b);
  b(1, 1) = 5;
  CHECK_FALSE(a == b);
  CHECK(a != b);
  CHECK_FALSE(pl::Array<int, pl::dyn>(3) == pl::Array<int, pl::dyn>(4));
  CHECK(pl::Array<int, pl::dyn>(3) == pl::Array<int, pl::dyn>(3));
  // NaN is not equal to itself (elementwise ==, like numpy's array_equal).
  auto const n = pl::Array<float, 2>::full(std::numeric_limits<float>::quiet_NaN());
  CHECK_FALSE(n == n);
}

TEST_CASE("allclose: numpy's rule |a - b| <= atol + rtol * |b|", "[array]") {
  pl::Array<float, 3> const a{1.0f, 100.0f, 0.0f};
  CHECK(pl::allclose(a, a));
  pl::Array<float, 3> b{1.0f + 5e-6f, 100.0f + 5e-4f, 0.0f};
  CHECK(pl::allclose(a, b));
  b(1) = 100.01f;  // 1e-2 > 1e-8 + 1e-5 * 100
  CHECK_FALSE(pl::allclose(a, b));
  CHECK(pl::allclose(a, b, 1e-3));   // rtol
  CHECK(pl::allclose(a, b, 0, 0.02));  // atol
  pl::Array<float, 3> const tiny{1.0f, 100.0f, 1e-9f};
  CHECK(pl::allclose(a, tiny));  // within atol of zero
  pl::Array<float, 3> const small{1.0f, 100.0f, 1e-7f};
  CHECK_FALSE(pl::allclose(a, small));

  // NaN: unequal unless equal_nan, and then only NaN against NaN.
  float const nan = std::numeric_limits<float>::quiet_NaN();
  pl::Array<float, 2> const x{nan, 1.0f};
  pl::Array<float, 2> const y{nan, 1.0f};
  pl::Array<float, 2> const z{0.0f, 1.0f};
  CHECK_FALSE(pl::allclose(x, y));
  CHECK(pl::allclose(x, y, 1e-5, 1e-8, true));
  CHECK_FALSE(pl::allclose(x, z, 1e-5, 1e-8, true));
  CHECK_FALSE(pl::allclose(z, x, 1e-5, 1e-8, true));

  // Infinities equal only to themselves.
  float const inf = std::numeric_limits<float>::infinity();
  CHECK(pl::allclose(pl::Array<float, 1>{inf}, pl::Array<float, 1>{inf}));
  CHECK_FALSE(pl::allclose(pl::Array<float, 1>{inf}, pl::Array<float, 1>{-inf}));
  CHECK_FALSE(pl::allclose(pl::Array<float, 1>{inf}, pl::Array<float, 1>{1e30f}));
  CHECK_FALSE(pl::allclose(pl::Array<float, 1>{1e30f}, pl::Array<float, 1>{inf}));

  // Shapes: static and run-time spellings of one shape compare; different shapes don't.
  auto const d = pl::Array<float, pl::dyn>::from(std::vector<float>{1.0f, 100.0f, 0.0f}, 3);
  CHECK(pl::allclose(a, d));
  CHECK_FALSE(pl::allclose(a, pl::Array<float, pl::dyn>(4)));
  CHECK_FALSE(pl::allclose(pl::Array<float, 2, 3>{}, pl::Array<float, 3, 2>{}));
}

TEST_CASE("Array: printing like numpy", "[array]") {
  CHECK(printed(pl::Array<int, 3>{1, 2, 3}) == "[1 2 3]");
  CHECK(printed(pl::Array<float, 2, 3>{1, 2, 3, 4, 5, 6}) == "[[1 2 3]\n [4 5 6]]");
  CHECK(printed(pl::Array<float, 2>{0.5f, -1.25f}) == "[0.5 -1.25]");
  CHECK(printed(pl::Array<bool, 2>{true, false}) == "[True False]");
  CHECK(printed(pl::Array<std::int8_t, 2>{-3, 65}) == "[-3 65]");  // numbers, not chars
  CHECK(printed(pl::Array<int, 0>{}) == "[]");
  // Rank 3: a blank line between the outer blocks, indentation by depth.
  auto const c = pl::Array<int, 2, 2, 2>::generate(
      [](pl::index_t i, pl::index_t j, pl::index_t k) { return 4 * i + 2 * j + k; });
  CHECK(printed(c) == "[[[0 1]\n  [2 3]]\n\n [[4 5]\n  [6 7]]]");
  // 1000 elements are printed in full; more are summarized, 3 at each edge.
  auto const full = pl::Array<int, 1000>::generate([](pl::index_t i) { return i; });
  CHECK(printed(full).find("...") == std::string::npos);
  auto const long1 = pl::Array<int, 2000>::generate([](pl::index_t i) { return i; });
  CHECK(printed(long1) == "[0 1 2 ... 1997 1998 1999]");
}

TEST_CASE("Array: summarized printing of nested rows like numpy", "[array]") {
  // numpy: np.arange(2000).reshape(40, 50), without the column padding.
  auto const a = pl::Array<int, 40, 50>::generate([](pl::index_t i, pl::index_t j) { return 50 * i + j; });
  CHECK(printed(a) ==
        "[[0 1 2 ... 47 48 49]\n"
        " [50 51 52 ... 97 98 99]\n"
        " [100 101 102 ... 147 148 149]\n"
        " ...\n"
        " [1850 1851 1852 ... 1897 1898 1899]\n"
        " [1900 1901 1902 ... 1947 1948 1949]\n"
        " [1950 1951 1952 ... 1997 1998 1999]]");
  // numpy: np.arange(1008).reshape(7, 2, 72): blank lines around the outer "...".
  auto const b = pl::Array<int, 7, 2, 72>::generate(
      [](pl::index_t i, pl::index_t j, pl::index_t k) { return 144 * i + 72 * j + k; });
  std::string const expected =
      "[[[0 1 2 ... 69 70 71]\n"
      "  [72 73 74 ... 141 142 143]]\n"
      "\n"
      " [[144 145 146 ... 213 214 215]\n"
      "  [216 217 218 ... 285 286 287]]\n"
      "\n"
      " [[288 289 290 ... 357 358 359]\n"
      "  [360 361 362 ... 429 430 431]]\n"
      "\n"
      " ...\n"
      "\n"
      " [[576 577 578 ... 645 646 647]\n"
      "  [648 649 650 ... 717 718 719]]\n"
      "\n"
      " [[720 721 722 ... 789 790 791]\n"
      "  [792 793 794 ... 861 862 863]]\n"
      "\n"
      " [[864 865 866 ... 933 934 935]\n"
      "  [936 937 938 ... 1005 1006 1007]]]";
  CHECK(printed(b) == expected);
}

TEST_CASE("Array: the HBM ref views the storage", "[array]") {
  pl::Array<float, pl::dyn, 4> a(3);
  auto const r = a.ref();
  STATIC_REQUIRE(decltype(r)::space == pl::memory_space::hbm);
  STATIC_REQUIRE(std::is_same_v<decltype(r)::shape_type, pl::shape<pl::dyn, 4>>);
  CHECK(r.data() == a.data());
  CHECK(r.extent(0) == 3);
  CHECK(r.stride(0) == 4);
}

TEST_CASE("ShapeDtypeStruct and pl::like", "[array][shape_dtype_struct]") {
  constexpr pl::ShapeDtypeStruct<float, 128> s{};
  STATIC_REQUIRE(std::is_same_v<decltype(s)::dtype, float>);
  STATIC_REQUIRE(std::is_same_v<decltype(s)::shape_type, pl::shape<128>>);
  STATIC_REQUIRE(std::is_same_v<decltype(s)::array_type, pl::Array<float, 128>>);
  STATIC_REQUIRE(s.shape.size() == 128);
  STATIC_REQUIRE(pl::ShapeDtype<decltype(s)>);
  STATIC_REQUIRE(!pl::ShapeDtype<pl::Array<float, 128>>);
  auto const made = s.make_array();
  CHECK(made.size() == 128);
  CHECK(all_equal(made, 0.0f));

  constexpr pl::ShapeDtypeStruct<std::int32_t, pl::dyn, 8> d(5);
  STATIC_REQUIRE(d.shape.extent(0) == 5);
  CHECK(d.make_array().extent(0) == 5);

  pl::Array<float, pl::dyn, 128> const x(6);
  auto const l = pl::like(x);
  STATIC_REQUIRE(std::is_same_v<decltype(l), pl::ShapeDtypeStruct<float, pl::dyn, 128> const>);
  CHECK(l.shape == x.shape());
  CHECK(l.make_array().shape() == x.shape());
  pl::Array<std::uint32_t, 2, 3> const y;
  STATIC_REQUIRE(std::is_same_v<decltype(pl::like(y)), pl::ShapeDtypeStruct<std::uint32_t, 2, 3>>);
}
