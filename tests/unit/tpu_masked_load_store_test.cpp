// pltpu::load / pltpu::store with a mask, against naive loops: masked-off lanes of a load are
// poison (checked mode), a store leaves them untouched bit for bit (NaNs included);
// indexers, broadcasting masks, strided views, values and masks that read the destination,
// scalars; and checked mode's race check on a masked store into a copy's source.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

namespace {

using pl::index_t;
constexpr index_t R = 8, C = 128;
using vmem_ref = pl::Ref<float, pl::shape<R, C>, pl::memory_space::vmem>;

std::vector<float> pattern(unsigned salt) {
  std::vector<float> v(R * C);
  for (index_t i = 0; i < R * C; ++i) v[static_cast<std::size_t>(i)] = static_cast<float>((i * 7 + salt) % 23) - 11;
  return v;
}

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace

TEST_CASE("pltpu::load with a mask: the ref where the mask holds, poison elsewhere", "[tpu][masked]") {
  auto mem = pattern(1);
  vmem_ref x(mem.data(), {});
  auto const cols = pl::iota<std::int32_t, pl::shape<R, C>>(1);
  auto const v = pltpu::load(x, cols < 100);  // a ragged last tile: 100 valid columns
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(v)>, pl::block<float, pl::shape<R, C>>>);
  int wrong = 0;
  for (index_t i = 0; i < R; ++i)
    for (index_t j = 0; j < C; ++j) {
      float const got = v(i, j);
      if (j < 100)
        wrong += got != mem[static_cast<std::size_t>(i * C + j)];
      else if constexpr (pl::checked_mode)
        wrong += !std::isnan(got);  // unspecified: poison in checked mode
    }
  CHECK(wrong == 0);

  // indexers (pl.load(x.at[2:6, :]) with a row mask of shape (4, 1), broadcast over columns)
  auto const rows = pl::iota<std::int32_t, pl::shape<4, 1>>(0);
  auto const w = pltpu::load(x, pl::ds<4>(2), pl::full_extent, rows % 2 == 0);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(w)>, pl::block<float, pl::shape<4, C>>>);
  wrong = 0;
  for (index_t i = 0; i < 4; ++i)
    for (index_t j = 0; j < C; ++j) {
      if (i % 2 == 0)
        wrong += w(i, j) != mem[static_cast<std::size_t>((i + 2) * C + j)];
      else if constexpr (pl::checked_mode)
        wrong += !std::isnan(w(i, j));
    }
  CHECK(wrong == 0);

  // integers: INT_MIN as poison; a strided view (every column j of a transposed layout)
  std::vector<std::int32_t> imem(R * C);
  for (index_t i = 0; i < R * C; ++i) imem[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(i);
  pl::Ref<std::int32_t, pl::shape<C, R>, pl::memory_space::vmem, pl::strides<1, C>> t(imem.data(), {}, {});
  auto const tv = pltpu::load(t, pl::iota<std::int32_t, pl::shape<C, R>>(0) >= 64);
  wrong = 0;
  for (index_t a = 0; a < C; ++a)
    for (index_t b = 0; b < R; ++b) {
      if (a >= 64)
        wrong += tv(a, b) != imem[static_cast<std::size_t>(b * C + a)];
      else if constexpr (pl::checked_mode)
        wrong += tv(a, b) != std::numeric_limits<std::int32_t>::min();
    }
  CHECK(wrong == 0);
}

TEST_CASE("pltpu::store with a mask writes where the mask holds and leaves the rest untouched", "[tpu][masked]") {
  auto mem = pattern(2);
  mem[5] = std::numeric_limits<float>::quiet_NaN();  // untouched lanes keep even a NaN's bits
  mem[C + 7] = -0.0f;
  auto const before = mem;
  auto src = pattern(3);
  vmem_ref o(mem.data(), {});
  vmem_ref s(src.data(), {});
  auto const cols = pl::iota<std::int32_t, pl::shape<R, C>>(1);
  auto const rows = pl::iota<std::int32_t, pl::shape<R, 1>>(0);
  auto at = [&](index_t i, index_t j) { return mem[static_cast<std::size_t>(i * C + j)]; };
  auto was = [&](index_t i, index_t j) { return before[static_cast<std::size_t>(i * C + j)]; };
  auto in = [&](index_t i, index_t j) { return src[static_cast<std::size_t>(i * C + j)]; };

  SECTION("an expression under a column mask") {
    pltpu::store(o, s[pl::ellipsis] * 2 + 1, pl::logical_and(cols >= 8, cols < 100));
    int wrong = 0;
    for (index_t i = 0; i < R; ++i)
      for (index_t j = 0; j < C; ++j)
        wrong += (j >= 8 && j < 100) ? at(i, j) != in(i, j) * 2 + 1 : !same_bits(at(i, j), was(i, j));
    CHECK(wrong == 0);
  }
  SECTION("a scalar under a broadcasting row mask, through indexers") {
    pltpu::store(o, pl::ds<4>(4), pl::full_extent, 9.0f, pl::iota<std::int32_t, pl::shape<4, 1>>(0) != 2);
    int wrong = 0;
    for (index_t i = 0; i < R; ++i)
      for (index_t j = 0; j < C; ++j)
        wrong += (i >= 4 && i != 6) ? at(i, j) != 9.0f : !same_bits(at(i, j), was(i, j));
    CHECK(wrong == 0);
  }
  SECTION("a mask that reads the destination: o[o < 0] = 0") {
    pltpu::store(o, 0.0f, o[pl::ellipsis] < 0);
    int wrong = 0;
    for (index_t i = 0; i < R; ++i)
      for (index_t j = 0; j < C; ++j)
        wrong += was(i, j) < 0 ? at(i, j) != 0.0f : !same_bits(at(i, j), was(i, j));
    CHECK(wrong == 0);
  }
  SECTION("a value that reads the destination elsewhere: rows rolled by one, under a row mask") {
    pltpu::store(o, pl::roll(o[pl::ellipsis], 1, pl::axis<0>), rows < 4);
    int wrong = 0;
    for (index_t i = 0; i < R; ++i)
      for (index_t j = 0; j < C; ++j)
        wrong += !same_bits(at(i, j), i < 4 ? was((i + R - 1) % R, j) : was(i, j));  // row 0's NaN moves too
    CHECK(wrong == 0);
  }
  SECTION("an all-false mask writes nothing; an all-true one is a store") {
    pltpu::store(o, s[pl::ellipsis], cols < 0);
    int wrong = 0;
    for (index_t i = 0; i < R * C; ++i) wrong += !same_bits(mem[static_cast<std::size_t>(i)], before[static_cast<std::size_t>(i)]);
    pltpu::store(o, s[pl::ellipsis], cols >= 0);
    for (index_t i = 0; i < R * C; ++i) wrong += mem[static_cast<std::size_t>(i)] != src[static_cast<std::size_t>(i)];
    CHECK(wrong == 0);
  }
  SECTION("a strided destination: a column-major view") {
    pl::Ref<float, pl::shape<C, R>, pl::memory_space::vmem, pl::strides<1, C>> t(mem.data(), {}, {});
    pltpu::store(t, 1.0f, pl::iota<std::int32_t, pl::shape<C, R>>(1) == 3);  // t[:, 3] = 1 is o[3, :] = 1
    int wrong = 0;
    for (index_t i = 0; i < R; ++i)
      for (index_t j = 0; j < C; ++j) wrong += i == 3 ? at(i, j) != 1.0f : !same_bits(at(i, j), was(i, j));
    CHECK(wrong == 0);
  }
}

TEST_CASE("checked mode: a masked store into a copy's source before its wait is a race", "[tpu][masked][checked]") {
  using mesh = pltpu::TensorCoreMesh<"core", 1>;
  auto x = pl::Array<float, R, C>::full(1.0f);
  auto k = pl::kernel(pl::like(x), pl::mesh<mesh>,
                      pl::scratch_types<pltpu::VMEM<float, R, C>, pltpu::SemaphoreType::DMA<>>)(
      [](auto, auto o_hbm, auto src, auto sem) {
        src[pl::ellipsis] = pl::full_like(src, 2.0f);
        auto copy = pltpu::make_async_copy(src, o_hbm, sem);
        copy.start();
        pltpu::store(src, 3.0f, pl::iota<std::int32_t, pl::shape<R, C>>(1) < 4);
        copy.wait();
      });
  if constexpr (pl::checked_mode)
    REQUIRE_THROWS_WITH(k(x), Catch::Contains("source") && Catch::Contains("masked store"));
}
