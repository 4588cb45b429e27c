// pl::cdiv, pl::align_to, pl::next_power_of_2 against exact rational arithmetic and naive
// loops, at compile and run time; pl::multiple_of as an identity that checked mode
// verifies, also inside a kernel's index arithmetic.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <type_traits>

#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

namespace {
using pl::index_t;

// Compile time: a grid extent, static ints in and out.
static_assert(pl::cdiv(300, 128) == 3 && pl::cdiv(256, 128) == 2 && pl::cdiv(0, 128) == 0);
static_assert(std::is_same_v<decltype(pl::cdiv(pl::c<300>, pl::c<128>)), pl::c_t<3>>);
static_assert(std::is_same_v<decltype(pl::align_to(pl::c<300>, pl::c<128>)), pl::c_t<384>>);
static_assert(pl::align_to(300, 128) == 384 && pl::align_to(384, 128) == 384);
static_assert(pl::next_power_of_2(0) == 1 && pl::next_power_of_2(1) == 1 && pl::next_power_of_2(5) == 8 &&
              pl::next_power_of_2(1024) == 1024 && pl::next_power_of_2(1025) == 2048);
static_assert(pl::multiple_of(256, 128) == 256);
static_assert(std::is_same_v<decltype(pl::multiple_of(pl::c<256>, 128)), pl::c_t<256>>);

template <index_t N>
constexpr index_t steps = N;
static_assert(steps<pl::cdiv(1000, 128)> == 8);
}  // namespace

TEST_CASE("pl::cdiv and pl::align_to are ceilings, also for negative operands", "[integer]") {
  int wrong = 0;
  for (index_t a = -50; a <= 50; ++a)
    for (index_t b = -7; b <= 7; ++b) {
      if (b == 0) continue;
      auto const want = static_cast<index_t>(std::ceil(static_cast<double>(a) / static_cast<double>(b)));
      wrong += pl::cdiv(a, b) != want;
      if (b > 0) wrong += pl::align_to(a, b) != want * b;
    }
  CHECK(wrong == 0);
  CHECK(pl::cdiv(std::int32_t{7}, 2) == 4);
  CHECK_THROWS_WITH(pl::cdiv(5, 0), Catch::Contains("pallas::cdiv: division by zero"));
}

TEST_CASE("pl::next_power_of_2 is the smallest power of two not below x", "[integer]") {
  for (index_t x = 0; x <= 5000; ++x) {
    index_t want = 1;
    while (want < x) want <<= 1;
    REQUIRE(pl::next_power_of_2(x) == want);
  }
  CHECK_THROWS_AS(pl::next_power_of_2(-1), pl::error);
}

TEST_CASE("pl::multiple_of returns its argument, checked mode verifies the hint", "[integer][checked]") {
  CHECK(pl::multiple_of(index_t{384}, 128) == 384);
  CHECK(pl::multiple_of(std::int32_t{-24}, 8) == -24);
  CHECK_THROWS_WITH(pl::multiple_of(index_t{130}, 128), Catch::Contains("130 is not a multiple of 128"));
  CHECK_THROWS_AS(pl::multiple_of(4, 0), pl::error);

  // Inside a kernel, as Pallas uses it: pl.ds(pl.multiple_of(i * 128, 128), 128).
  auto fill = [](index_t step) {
    return pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 512>>, pl::mesh<pltpu::TensorCoreMesh<"core", 2>>,
                      pl::scratch_types<pltpu::VMEM<float, 128>>)([step](auto o_hbm, auto v) {
      for (index_t k = 0; k < 2; ++k) {
        index_t const block = pl::axis_index<"core">() * 2 + k;
        v[pl::ellipsis] = pl::full_like(v, static_cast<float>(block));
        pltpu::sync_copy(v, o_hbm.at(pl::ds<128>(pl::multiple_of(block * step, 128))));
      }
    })();
  };
  auto const o = fill(128);
  int wrong = 0;
  for (index_t i = 0; i < 512; ++i) wrong += o(i) != static_cast<float>(i / 128);
  CHECK(wrong == 0);
  CHECK_THROWS_WITH(fill(96), Catch::Contains("is not a multiple of 128") && Catch::Contains("core"));
}
