// pl::Ref and Ref::at: integers, pl::ds<N>(dyn), pl::ds<N>(pl::c<K>), pl::ds(start, n),
// pl::full_extent, pl::ellipsis; the resulting shapes (static where the indexers are),
// strides and data pointers checked against hand-computed offsets; element access; the
// run-time bounds errors.
#include <pallas/pallas.hpp>

#include <catch2/catch.hpp>

#include "../support/error_of.hpp"

#include <array>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

namespace pl = pallas;

namespace {

using pallas_test::error_of;

/// A 4 x 8 row-major buffer holding 0, 1, 2, ... and a VMEM ref over it.
struct grid48 {
  std::array<float, 32> data{};
  pl::Ref<float, pl::shape<4, 8>, pl::memory_space::vmem> ref{data.data(), {}};
  grid48() { std::iota(data.begin(), data.end(), 0.0f); }
};

/// Every element of `r` (rank 2) against the buffer at base + i * s0 + j * s1.
template <class R>
bool views(R const& r, float const* base, pl::index_t s0, pl::index_t s1) {
  for (pl::index_t i = 0; i < r.extent(0); ++i)
    for (pl::index_t j = 0; j < r.extent(1); ++j)
      if (&r(i, j) != base + i * s0 + j * s1) return false;
  return true;
}

}  // namespace

TEST_CASE("Ref: a row-major view of a buffer", "[ref]") {
  grid48 g;
  auto const& r = g.ref;
  STATIC_REQUIRE(std::decay_t<decltype(r)>::rank() == 2);
  STATIC_REQUIRE(std::decay_t<decltype(r)>::space == pl::memory_space::vmem);
  STATIC_REQUIRE(std::decay_t<decltype(r)>::is_static_contiguous);
  CHECK(r.data() == g.data.data());
  CHECK(r.extent(0) == 4);
  CHECK(r.extent(1) == 8);
  CHECK(r.stride(0) == 8);
  CHECK(r.stride(1) == 1);
  CHECK(r.size() == 32);
  CHECK(r.is_contiguous());
  for (pl::index_t i = 0; i < 4; ++i)
    for (pl::index_t j = 0; j < 8; ++j) CHECK(r(i, j) == static_cast<float>(i * 8 + j));
  r(2, 5) = -1.0f;  // writes through
  CHECK(g.data[2 * 8 + 5] == -1.0f);
  CHECK(r(pl::c<2>, 5) == -1.0f);  // static and run-time indices mix
}

TEST_CASE("Ref::at: an integer drops its dimension", "[ref]") {
  grid48 g;
  auto const row = g.ref.at(2);
  STATIC_REQUIRE(std::is_same_v<decltype(row), pl::Ref<float, pl::shape<8>, pl::memory_space::vmem, pl::strides<1>> const>);
  CHECK(row.data() == g.data.data() + 16);
  CHECK(row(3) == 19.0f);

  auto const col = g.ref.at(pl::full_extent, 3);
  STATIC_REQUIRE(std::is_same_v<decltype(col), pl::Ref<float, pl::shape<4>, pl::memory_space::vmem, pl::strides<8>> const>);
  CHECK(col.data() == g.data.data() + 3);
  CHECK(col.stride(0) == 8);
  CHECK_FALSE(col.is_contiguous());
  for (pl::index_t i = 0; i < 4; ++i) CHECK(col(i) == static_cast<float>(i * 8 + 3));

  auto const one = g.ref.at(3, pl::c<7>);  // every dimension indexed: rank 0
  STATIC_REQUIRE(decltype(one)::rank() == 0);
  CHECK(one.data() == g.data.data() + 31);
  CHECK(one() == 31.0f);
}

TEST_CASE("Ref::at: pl::ds<N>(start) has a static size and a run-time start", "[ref]") {
  grid48 g;
  for (pl::index_t start = 0; start + 2 <= 4; ++start) {
    auto const rows = g.ref.at(pl::ds<2>(start));
    STATIC_REQUIRE(std::is_same_v<typename decltype(rows)::shape_type, pl::shape<2, 8>>);
    STATIC_REQUIRE(std::is_same_v<typename decltype(rows)::strides_type, pl::strides<8, 1>>);
    CHECK(rows.data() == g.data.data() + start * 8);
    CHECK(views(rows, g.data.data() + start * 8, 8, 1));
    CHECK(rows.is_contiguous());
  }
  // `o_ref.at[pl.ds(i * 128, 128)]` for i = 1 of a 512-element ref.
  std::vector<float> big(512);
  pl::Ref<float, pl::shape<512>, pl::memory_space::hbm> const o(big.data(), {});
  int const i = 1;
  auto const slice = o.at(pl::ds<128>(i * 128));
  STATIC_REQUIRE(std::is_same_v<typename decltype(slice)::shape_type, pl::shape<128>>);
  STATIC_REQUIRE(decltype(slice)::space == pl::memory_space::hbm);  // .at keeps the space
  CHECK(slice.data() == big.data() + 128);
}

TEST_CASE("Ref::at: pl::ds<N>(pl::c<K>) is static through and through", "[ref]") {
  grid48 g;
  auto const block = g.ref.at(pl::ds<2>(pl::c<1>), pl::ds<4>(pl::c<4>));
  STATIC_REQUIRE(std::is_same_v<typename decltype(block)::shape_type, pl::shape<2, 4>>);
  STATIC_REQUIRE(std::is_same_v<typename decltype(block)::strides_type, pl::strides<8, 1>>);
  CHECK(block.data() == g.data.data() + 1 * 8 + 4);
  CHECK(views(block, g.data.data() + 12, 8, 1));
  CHECK_FALSE(block.is_contiguous());  // rows of 4 out of 8
  CHECK(block(1, 3) == static_cast<float>(2 * 8 + 7));
  // The slice touching the end is allowed: [4, 8) of 8.
  CHECK(g.ref.at(0, pl::ds<4>(pl::c<4>)).data() == g.data.data() + 4);
}

TEST_CASE("Ref::at: pl::ds(start, n) has a run-time size", "[ref]") {
  grid48 g;
  auto const cols = g.ref.at(pl::full_extent, pl::ds(2, 5));
  STATIC_REQUIRE(std::is_same_v<typename decltype(cols)::shape_type, pl::shape<4, pl::dyn>>);
  CHECK(cols.extent(0) == 4);
  CHECK(cols.extent(1) == 5);
  CHECK(cols.stride(0) == 8);
  CHECK(cols.stride(1) == 1);
  CHECK(cols.data() == g.data.data() + 2);
  CHECK(views(cols, g.data.data() + 2, 8, 1));
  auto const empty = g.ref.at(pl::ds(1, 0));
  CHECK(empty.extent(0) == 0);
  CHECK(empty.size() == 0);
}

TEST_CASE("Ref::at: pl::ellipsis stands for the dimensions not named", "[ref]") {
  grid48 g;
  auto const all = g.ref.at(pl::ellipsis);
  STATIC_REQUIRE(std::is_same_v<typename decltype(all)::shape_type, pl::shape<4, 8>>);
  CHECK(all.data() == g.data.data());

  auto const last_col = g.ref.at(pl::ellipsis, 7);
  STATIC_REQUIRE(std::is_same_v<typename decltype(last_col)::shape_type, pl::shape<4>>);
  CHECK(last_col.data() == g.data.data() + 7);
  CHECK(last_col.stride(0) == 8);

  auto const row = g.ref.at(1, pl::ellipsis);
  STATIC_REQUIRE(std::is_same_v<typename decltype(row)::shape_type, pl::shape<8>>);
  CHECK(row.data() == g.data.data() + 8);

  // Trailing dimensions are kept whole without an ellipsis, too.
  auto const rows = g.ref.at(pl::ds<3>(1));
  STATIC_REQUIRE(std::is_same_v<typename decltype(rows)::shape_type, pl::shape<3, 8>>);

  // Rank 3: the ellipsis in the middle.
  std::vector<int> buf(2 * 3 * 4);
  std::iota(buf.begin(), buf.end(), 0);
  pl::Ref<int, pl::shape<2, 3, 4>, pl::memory_space::vmem> const r3(buf.data(), {});
  auto const mid = r3.at(1, pl::ellipsis, pl::ds<2>(pl::c<1>));
  STATIC_REQUIRE(std::is_same_v<typename decltype(mid)::shape_type, pl::shape<3, 2>>);
  STATIC_REQUIRE(std::is_same_v<typename decltype(mid)::strides_type, pl::strides<4, 1>>);
  CHECK(mid.data() == buf.data() + 12 + 1);
  for (pl::index_t j = 0; j < 3; ++j)
    for (pl::index_t k = 0; k < 2; ++k) CHECK(mid(j, k) == static_cast<int>(12 + j * 4 + 1 + k));
}

TEST_CASE("Ref::at: views of views compose offsets and strides", "[ref]") {
  // A 6 x 10 x 12 buffer; take [1:5, 2, 3:11] then [1:3, ::] of that, then column 4.
  std::vector<double> buf(6 * 10 * 12);
  std::iota(buf.begin(), buf.end(), 0.0);
  pl::Ref<double, pl::shape<6, 10, 12>, pl::memory_space::vmem> const r(buf.data(), {});
  auto const a = r.at(pl::ds<4>(1), 2, pl::ds<8>(3));
  CHECK(a.stride(0) == 120);
  CHECK(a.stride(1) == 1);
  CHECK(a.data() == buf.data() + 1 * 120 + 2 * 12 + 3);
  auto const b = a.at(pl::ds(1, 2), pl::full_extent);
  CHECK(b.data() == buf.data() + 2 * 120 + 2 * 12 + 3);
  auto const c = b.at(pl::full_extent, 4);
  CHECK(c.extent(0) == 2);
  CHECK(c.stride(0) == 120);
  CHECK(c.data() == buf.data() + 2 * 120 + 2 * 12 + 7);
  for (pl::index_t i = 0; i < 2; ++i)
    CHECK(c(i) == static_cast<double>((2 + i) * 120 + 2 * 12 + 7));
}

TEST_CASE("Ref: run-time extents", "[ref]") {
  std::vector<float> buf(5 * 7);
  std::iota(buf.begin(), buf.end(), 0.0f);
  pl::Ref<float, pl::shape<pl::dyn, pl::dyn>, pl::memory_space::vmem> const r(
      buf.data(), pl::shape<pl::dyn, pl::dyn>(5, 7));
  CHECK(r.stride(0) == 7);
  CHECK(r.stride(1) == 1);
  CHECK(r.is_contiguous());
  CHECK(r(4, 6) == 34.0f);
  auto const s = r.at(pl::ds<2>(3), pl::ds<3>(pl::c<4>));
  STATIC_REQUIRE(std::is_same_v<typename decltype(s)::shape_type, pl::shape<2, 3>>);
  CHECK(s.data() == buf.data() + 3 * 7 + 4);
  CHECK(views(s, buf.data() + 25, 7, 1));
  // A static slice on a run-time extent is checked at run time.
  CHECK_THROWS_AS(r.at(pl::ds<3>(pl::c<5>)), pl::index_error);
}

TEST_CASE("Ref: rank-1 SMEM refs index with []", "[ref]") {
  std::array<std::int32_t, 4> buf{10, 11, 12, 13};
  pl::Ref<std::int32_t, pl::shape<4>, pl::memory_space::smem> const s(buf.data(), {});
  CHECK(s[2] == 12);
  s[3] = 7;
  CHECK(buf[3] == 7);
  CHECK(s(0) == 10);
}

TEST_CASE("Ref::at: an out-of-range dynamic slice is an index_error naming it", "[ref]") {
  grid48 g;
  auto const msg = error_of<pl::index_error>([&] { (void)g.ref.at(pl::full_extent, pl::ds<4>(6)); });
  CHECK_THAT(msg, Catch::Contains("dimension 1"));
  CHECK_THAT(msg, Catch::Contains("offset 6"));
  CHECK_THAT(msg, Catch::Contains("size 4"));
  CHECK_THAT(msg, Catch::Contains("extent 8"));

  auto const run_time = error_of<pl::index_error>([&] { (void)g.ref.at(pl::ds(3, 2)); });
  CHECK_THAT(run_time, Catch::Contains("dimension 0"));
  CHECK_THAT(run_time, Catch::Contains("offset 3"));
  CHECK_THAT(run_time, Catch::Contains("size 2"));
  CHECK_THAT(run_time, Catch::Contains("extent 4"));

  auto const negative = error_of<pl::index_error>([&] { (void)g.ref.at(pl::ds<2>(-1)); });
  CHECK_THAT(negative, Catch::Contains("offset -1"));

  // Exactly at the edge is fine; one further is not.
  CHECK_NOTHROW(g.ref.at(pl::ds<2>(2)));
  CHECK_THROWS_AS(g.ref.at(pl::ds<2>(3)), pl::index_error);
  CHECK_THROWS_AS(g.ref.at(pl::ds(0, 5)), pl::index_error);
  CHECK_THROWS_AS(g.ref.at(pl::ds(0, -1)), pl::index_error);
}

TEST_CASE("Ref: out-of-range integer indices are index_errors", "[ref]") {
  grid48 g;
  auto const at_msg = error_of<pl::index_error>([&] { (void)g.ref.at(4); });
  CHECK_THAT(at_msg, Catch::Contains("index 4"));
  CHECK_THAT(at_msg, Catch::Contains("dimension 0"));
  CHECK_THAT(at_msg, Catch::Contains("extent 4"));
  CHECK_THROWS_AS(g.ref.at(-1), pl::index_error);
  CHECK_THROWS_AS(g.ref.at(0, 8), pl::index_error);

  auto const elem_msg = error_of<pl::index_error>([&] { (void)g.ref(1, 8); });
  CHECK_THAT(elem_msg, Catch::Contains("dimension 1"));
  CHECK_THAT(elem_msg, Catch::Contains("extent 8"));
  CHECK_THROWS_AS(g.ref(-1, 0), pl::index_error);
}

TEST_CASE("Ref: views of an Array are HBM refs over its storage", "[ref]") {
  pl::Array<float, 4, 8> a;
  auto const r = a.ref();
  STATIC_REQUIRE(decltype(r)::space == pl::memory_space::hbm);
  CHECK(r.data() == a.data());
  auto const part = r.at(pl::ds<2>(2), pl::ds<3>(pl::c<5>));
  CHECK(part.data() == a.data() + 2 * 8 + 5);
  CHECK(part.stride(0) == 8);
  STATIC_REQUIRE(pl::AnyRef<decltype(part)>);
  STATIC_REQUIRE(!pl::AnyRef<decltype(a)>);
}
