// pl::shape (extents): static and run-time extents, size, row-major strides, from_all,
// printing. References: hand-computed values and naive loops.
#include <pallas/pallas.hpp>

#include <catch2/catch.hpp>

#include "../support/error_of.hpp"

#include <array>
#include <sstream>
#include <string>
#include <type_traits>

namespace pl = pallas;

namespace {

using pallas_test::error_of;

template <class T>
std::string printed(T const& value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

}  // namespace

TEST_CASE("shape: static extents", "[shape]") {
  using s = pl::shape<2, 3, 4>;
  STATIC_REQUIRE(s::rank() == 3);
  STATIC_REQUIRE(s::rank_dynamic() == 0);
  STATIC_REQUIRE(s::is_static);
  STATIC_REQUIRE(s::static_size() == 24);
  STATIC_REQUIRE(s::static_extent(0) == 2);
  STATIC_REQUIRE(s::static_extent(2) == 4);
  constexpr s value{};
  STATIC_REQUIRE(value.size() == 2 * 3 * 4);
  STATIC_REQUIRE(value.extent(1) == 3);
  STATIC_REQUIRE(value.all() == std::array<pl::index_t, 3>{2, 3, 4});
  // Nothing is stored for static extents (the mdspan model): a view is one pointer.
  STATIC_REQUIRE(sizeof(pl::Ref<float, s, pl::memory_space::vmem>) == sizeof(float*));
  STATIC_REQUIRE(sizeof(pl::Ref<float, pl::shape<pl::dyn, 4>, pl::memory_space::vmem>) ==
                 sizeof(float*) + sizeof(pl::index_t));  // one extent; strides (4, 1) static
  STATIC_REQUIRE(sizeof(pl::Ref<float, pl::shape<4, pl::dyn>, pl::memory_space::vmem>) ==
                 sizeof(float*) + 2 * sizeof(pl::index_t));  // one extent, one stride

  STATIC_REQUIRE(pl::shape<>::rank() == 0);
  STATIC_REQUIRE(pl::shape<>::static_size() == 1);  // a scalar has one element
  STATIC_REQUIRE(pl::shape<5, 0>::static_size() == 0);
}

TEST_CASE("shape: run-time extents are stored, static ones are not", "[shape]") {
  using s = pl::shape<pl::dyn, 128, pl::dyn>;
  STATIC_REQUIRE(s::rank() == 3);
  STATIC_REQUIRE(s::rank_dynamic() == 2);
  STATIC_REQUIRE(!s::is_static);
  STATIC_REQUIRE(s::static_extent(0) == pl::dyn);
  STATIC_REQUIRE(s::static_extent(1) == 128);
  STATIC_REQUIRE(sizeof(s) == 2 * sizeof(pl::index_t));

  s const value(4, 8);  // the run-time extents, in order
  CHECK(value.extent(0) == 4);
  CHECK(value.extent(1) == 128);
  CHECK(value.extent(2) == 8);
  CHECK(value.size() == 4 * 128 * 8);
  CHECK(value.all() == std::array<pl::index_t, 3>{4, 128, 8});

  constexpr pl::shape<3, pl::dyn> c(7);
  STATIC_REQUIRE(c.size() == 21);
  STATIC_REQUIRE(c.extent(1) == 7);

  // Any integer type is accepted and converted.
  pl::shape<pl::dyn> const from_int(static_cast<int>(9));
  pl::shape<pl::dyn> const from_size(std::size_t{9});
  CHECK(from_int == from_size);
  CHECK(pl::shape<pl::dyn>(0).size() == 0);
}

TEST_CASE("shape: size matches the product of the extents", "[shape]") {
  for (pl::index_t a = 0; a < 5; ++a)
    for (pl::index_t b = 0; b < 5; ++b) {
      pl::shape<pl::dyn, 3, pl::dyn> const s(a, b);
      pl::index_t product = 1;
      for (pl::index_t e : s.all()) product *= e;
      CHECK(s.size() == product);
      CHECK(s.size() == a * 3 * b);
    }
}

TEST_CASE("shape: a negative run-time extent is a shape_error", "[shape]") {
  auto const msg = error_of<pl::shape_error>([] { pl::shape<4, pl::dyn> const s(-3); (void)s; });
  CHECK_THAT(msg, Catch::Contains("-3"));
  CHECK_THAT(msg, Catch::Contains(">= 0"));
}

TEST_CASE("shape: from_all checks the static extents", "[shape]") {
  using s = pl::shape<pl::dyn, 128, pl::dyn>;
  auto const ok = s::from_all({4, 128, 8});
  CHECK(ok.extent(0) == 4);
  CHECK(ok.extent(2) == 8);
  CHECK(pl::shape<2, 3>::from_all({2, 3}) == pl::shape<2, 3>{});

  auto const wrong = error_of<pl::shape_error>([] { (void)s::from_all({4, 64, 8}); });
  CHECK_THAT(wrong, Catch::Contains("dimension 1"));
  CHECK_THAT(wrong, Catch::Contains("128"));
  CHECK_THAT(wrong, Catch::Contains("64"));

  auto const negative = error_of<pl::shape_error>([] { (void)s::from_all({4, 128, -1}); });
  CHECK_THAT(negative, Catch::Contains("dimension 2"));
  CHECK_THAT(negative, Catch::Contains("-1"));
  // Errors derive from pallas::error.
  CHECK_THROWS_AS(s::from_all({1, 1, 1}), pl::error);
}

TEST_CASE("shape: equality compares extents, whatever is static", "[shape]") {
  CHECK(pl::shape<2, 3>{} == pl::shape<pl::dyn, 3>(2));
  CHECK(pl::shape<pl::dyn, pl::dyn>(2, 3) == pl::shape<2, 3>{});
  CHECK_FALSE(pl::shape<2, 3>{} == pl::shape<3, 2>{});
  CHECK_FALSE(pl::shape<pl::dyn>(6) == pl::shape<pl::dyn>(7));
  CHECK_FALSE(pl::shape<6>{} == pl::shape<6, 1>{});  // different rank
}

TEST_CASE("shape: row-major strides, static where the extents allow", "[shape]") {
  STATIC_REQUIRE(std::is_same_v<pl::row_major_strides_t<pl::shape<2, 3, 4>>, pl::strides<12, 4, 1>>);
  STATIC_REQUIRE(std::is_same_v<pl::row_major_strides_t<pl::shape<pl::dyn, 3, 4>>, pl::strides<12, 4, 1>>);
  STATIC_REQUIRE(std::is_same_v<pl::row_major_strides_t<pl::shape<2, pl::dyn, 4>>, pl::strides<pl::dyn, 4, 1>>);
  STATIC_REQUIRE(std::is_same_v<pl::row_major_strides_t<pl::shape<2, 3, pl::dyn>>,
                                pl::strides<pl::dyn, pl::dyn, 1>>);
  STATIC_REQUIRE(std::is_same_v<pl::row_major_strides_t<pl::shape<7>>, pl::strides<1>>);

  // Against a naive reference: stride r = product of the extents after r.
  pl::shape<pl::dyn, 5, pl::dyn, 2> const s(3, 7);
  auto const st = pl::row_major_strides(s);
  for (std::size_t r = 0; r < s.rank(); ++r) {
    pl::index_t expected = 1;
    for (std::size_t q = r + 1; q < s.rank(); ++q) expected *= s.extent(q);
    CHECK(st.extent(r) == expected);
  }
  CHECK(st.all() == std::array<pl::index_t, 4>{70, 14, 2, 1});
  // Flat offset of a multi-index equals sum(i_r * stride_r), enumerated in order.
  pl::index_t flat = 0;
  bool in_order = true;
  for (pl::index_t a = 0; a < 3; ++a)
    for (pl::index_t b = 0; b < 5; ++b)
      for (pl::index_t c = 0; c < 7; ++c)
        for (pl::index_t d = 0; d < 2; ++d)
          in_order &= a * st.extent(0) + b * st.extent(1) + c * st.extent(2) + d * st.extent(3) == flat++;
  CHECK(in_order);
  CHECK(flat == s.size());
}

TEST_CASE("shape: printing like a Python tuple", "[shape]") {
  CHECK(printed(pl::shape<2, 3>{}) == "(2, 3)");
  CHECK(printed(pl::shape<128>{}) == "(128,)");
  CHECK(printed(pl::shape<pl::dyn, 4>(9)) == "(9, 4)");
  CHECK(printed(pl::shape<>{}) == "()");
}

TEST_CASE("shape: static and run-time integers", "[shape]") {
  STATIC_REQUIRE(decltype(pl::c<128>)::value == 128);
  STATIC_REQUIRE(pl::StaticInt<decltype(pl::c<3>)>);
  STATIC_REQUIRE(!pl::DynamicInt<decltype(pl::c<3>)>);
  STATIC_REQUIRE(pl::DynamicInt<int>);
  STATIC_REQUIRE(pl::DynamicInt<std::size_t>);
  STATIC_REQUIRE(!pl::DynamicInt<bool>);
  STATIC_REQUIRE(!pl::Integer<float>);
  STATIC_REQUIRE(pl::Integer<pl::c_t<0>>);
  STATIC_REQUIRE(pl::dyn == -1);
  STATIC_REQUIRE(std::is_same_v<pl::index_t, std::int64_t>);
}
