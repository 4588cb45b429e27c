// emit_pipeline against naive references: the quickstart add, sweeps of shapes, ragged
// edges, buffer counts, semantics and core counts, the core split rule, re-fetch skipping,
// write-back timing, revisits, and the run-time errors.

#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

namespace {

// Calls f(i, j) for every element of a rank-2 ref.
template <class R, class F>
void for_each_2d(R const& r, F&& f) {
  for (pl::index_t i = 0; i < r.extent(0); ++i)
    for (pl::index_t j = 0; j < r.extent(1); ++j) f(i, j);
}

constexpr auto ij = [](auto i, auto j) { return pl::idx(i, j); };

template <int Cores>
using mesh = pltpu::TensorCoreMesh<"core", Cores>;

// o = x * 2 + y, blocked (BM, BN), on `Cores` cores with the given buffering.
template <int Cores, pl::index_t M, pl::index_t N, pl::index_t BM, pl::index_t BN, class InBuf, class OutBuf, class Sem>
pl::Array<float, M, N> scaled_add(pl::Array<float, M, N> const& x, pl::Array<float, M, N> const& y, InBuf in_buf,
                                  OutBuf out_buf, Sem sem) {
  auto k = pl::kernel(pl::like(x), pl::mesh<mesh<Cores>>)([=](auto x_hbm, auto y_hbm, auto o_hbm) {
    pltpu::emit_pipeline(
        [](auto xv, auto yv, auto ov) { for_each_2d(ov, [&](auto i, auto j) { ov(i, j) = xv(i, j) * 2 + yv(i, j); }); },
        pl::grid<(M + BM - 1) / BM, (N + BN - 1) / BN>,
        pl::in_specs(pl::BlockSpec<BM, BN>(ij, in_buf), pl::BlockSpec<BM, BN>(ij, in_buf)),
        pl::out_specs(pl::BlockSpec<BM, BN>(ij, out_buf)), pltpu::core_axis_name<"core">, sem)(x_hbm, y_hbm, o_hbm);
  });
  return k(x, y);
}

template <pl::index_t M, pl::index_t N>
void check_scaled_add(pl::Array<float, M, N> const& x, pl::Array<float, M, N> const& y,
                      pl::Array<float, M, N> const& o) {
  for (pl::index_t i = 0; i < M; ++i)
    for (pl::index_t j = 0; j < N; ++j) REQUIRE(o(i, j) == x(i, j) * 2 + y(i, j));
}

template <pl::index_t M, pl::index_t N>
auto distinct(float salt) {
  return pl::Array<float, M, N>::generate([=](auto i, auto j) { return static_cast<float>(i * 1000 + j) + salt; });
}

}  // namespace

TEST_CASE("emit_pipeline: the quickstart's pipelined add gives 5 everywhere", "[pipeline]") {
  auto x = pl::Array<float, 256, 256>::full(2.0f);
  auto y = pl::Array<float, 256, 256>::full(3.0f);
  auto run = [&]<int Cores>() {
    auto add = pl::kernel(pl::like(x), pl::mesh<mesh<Cores>>)([](auto x_hbm, auto y_hbm, auto o_hbm) {
      pltpu::emit_pipeline(
          [](auto xv, auto yv, auto ov) { for_each_2d(ov, [&](auto i, auto j) { ov(i, j) = xv(i, j) + yv(i, j); }); },
          pl::grid<256 / 128, 256 / 128>,
          pl::in_specs(pl::BlockSpec<128, 128>(ij), pl::BlockSpec<128, 128>(ij)),
          pl::out_specs(pl::BlockSpec<128, 128>(ij)), pltpu::core_axis_name<"core">,
          pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::ARBITRARY>)(x_hbm, y_hbm, o_hbm);
    });
    auto o = add(x, y);
    REQUIRE(o == pl::Array<float, 256, 256>::full(5.0f));
  };
  run.template operator()<1>();
  run.template operator()<2>();
  run.template operator()<4>();
}

TEST_CASE("emit_pipeline: sweeps of shapes, ragged edges, buffering, semantics and cores match a loop", "[pipeline]") {
  using P = pltpu::GridDimensionSemantics;
  constexpr auto pa = pltpu::dimension_semantics<P::parallel, P::arbitrary>;
  constexpr auto pp = pltpu::dimension_semantics<P::parallel, P::parallel>;
  SECTION("divisible 256x384, 128x128 blocks") {
    auto x = distinct<256, 384>(0.5f);
    auto y = distinct<256, 384>(-7.0f);
    check_scaled_add(x, y, scaled_add<1, 256, 384, 128, 128>(x, y, pl::Buffered<2>, pl::Buffered<2>, pa));
    check_scaled_add(x, y, scaled_add<2, 256, 384, 128, 128>(x, y, pl::Buffered<1>, pl::Buffered<1>, pp));
    check_scaled_add(x, y, scaled_add<4, 256, 384, 128, 128>(x, y, pl::Buffered<3>, pl::Buffered<2>, pa));
    check_scaled_add(x, y, scaled_add<2, 256, 384, 128, 128>(x, y, pl::default_buffering{}, pl::Buffered<1>, pa));
  }
  SECTION("ragged 200x300, 64x128 blocks") {
    auto x = distinct<200, 300>(1.0f);
    auto y = distinct<200, 300>(2.0f);
    check_scaled_add(x, y, scaled_add<1, 200, 300, 64, 128>(x, y, pl::Buffered<2>, pl::Buffered<2>, pa));
    check_scaled_add(x, y, scaled_add<2, 200, 300, 64, 128>(x, y, pl::Buffered<3>, pl::Buffered<1>, pp));
    check_scaled_add(x, y, scaled_add<4, 200, 300, 64, 128>(x, y, pl::Buffered<1>, pl::Buffered<2>, pa));
  }
  SECTION("more cores than parallel steps: ragged 40x130, 8x128 blocks") {
    auto x = distinct<40, 130>(3.0f);
    auto y = distinct<40, 130>(4.0f);
    check_scaled_add(x, y, scaled_add<4, 40, 130, 8, 128>(x, y, pl::Buffered<2>, pl::Buffered<2>, pp));
    check_scaled_add(x, y, scaled_add<2, 40, 130, 8, 128>(x, y, pl::Buffered<2>, pl::Buffered<2>, pa));
  }
}

TEST_CASE("emit_pipeline: grid (5,) PARALLEL on 2 cores gives 3 and 2 steps", "[pipeline][split]") {
  // Each step writes its core and step count into its own output block.
  pl::Array<float, 5 * 128> owner;
  auto k = pl::kernel(pl::like(owner), pl::mesh<mesh<2>>)([](auto o_hbm) {
    int local_step = 0;
    pltpu::emit_pipeline(
        [&](auto ov) {
          for (pl::index_t e = 0; e < 128; ++e)
            ov(e) = static_cast<float>(pl::axis_index<"core">() * 100 + local_step);
          ++local_step;
        },
        pl::grid<5>, pl::out_specs(pl::BlockSpec<128>([](auto i) { return pl::idx(i); })),
        pltpu::core_axis_name<"core">, pltpu::dimension_semantics<pltpu::PARALLEL>)(o_hbm);
  });
  auto o = k();
  std::vector<float> const expected{0, 1, 2, 100, 101};  // core 0: blocks 0-2, core 1: blocks 3-4
  for (int b = 0; b < 5; ++b) REQUIRE(o(b * 128 + 7) == expected[static_cast<std::size_t>(b)]);
}

TEST_CASE("emit_pipeline: the first PARALLEL axis divisible by the core count is split", "[pipeline][split]") {
  // Grid (3, 4), both PARALLEL, 2 cores: axis 0 (3) does not divide, axis 1 (4) does.
  pl::Array<float, 3 * 8, 4 * 128> owner;
  auto k = pl::kernel(pl::like(owner), pl::mesh<mesh<2>>)([](auto o_hbm) {
    pltpu::emit_pipeline(
        [&](auto ov) {
          for_each_2d(ov, [&](auto i, auto j) {
            ov(i, j) = static_cast<float>(pl::axis_index<"core">() * 1000 + pl::program_id(0) * 10 + pl::program_id(1));
          });
        },
        pl::grid<3, 4>, pl::out_specs(pl::BlockSpec<8, 128>(ij)), pltpu::core_axis_name<"core">,
        pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::PARALLEL>)(o_hbm);
  });
  auto o = k();
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) REQUIRE(o(i * 8, j * 128) == static_cast<float>((j >= 2 ? 1000 : 0) + i * 10 + j));
}

TEST_CASE("emit_pipeline: the largest PARALLEL axis is split unevenly when none divides", "[pipeline][split]") {
  // Grid (3, 5) PARALLEL, PARALLEL on 2 cores: axis 1 (5) is the largest: core 0 gets j 0-2.
  pl::Array<float, 3 * 8, 5 * 128> owner;
  auto k = pl::kernel(pl::like(owner), pl::mesh<mesh<2>>)([](auto o_hbm) {
    pltpu::emit_pipeline(
        [&](auto ov) { for_each_2d(ov, [&](auto i, auto j) { ov(i, j) = static_cast<float>(pl::axis_index<"core">()); }); },
        pl::grid<3, 5>, pl::out_specs(pl::BlockSpec<8, 128>(ij)), pltpu::core_axis_name<"core">,
        pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::PARALLEL>)(o_hbm);
  });
  auto o = k();
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 5; ++j) REQUIRE(o(i * 8, j * 128) == (j < 3 ? 0.0f : 1.0f));
}

TEST_CASE("emit_pipeline: a reduction over an ARBITRARY axis accumulates with zeroing at the first step",
          "[pipeline]") {
  // x: (8, 256, 256) summed over axis 0: grid (2, 2, 8), reduction last.
  auto x = pl::Array<float, 8, 256, 256>::generate([](auto b, auto i, auto j) { return static_cast<float>(b + i % 3 + j % 5); });
  pl::Array<float, 256, 256> shape_of_out;
  auto k = pl::kernel(pl::like(shape_of_out), pl::mesh<mesh<2>>)([](auto x_hbm, auto o_hbm) {
    pltpu::emit_pipeline(
        [](auto xv, auto ov) {
          pl::when(pl::program_id(2) == 0, [&] { for_each_2d(ov, [&](auto i, auto j) { ov(i, j) = 0; }); });
          for_each_2d(ov, [&](auto i, auto j) { ov(i, j) += xv(i, j); });
        },
        pl::grid<2, 2, 8>,
        pl::in_specs(pl::BlockSpec<pl::squeezed, 128, 128>([](auto i, auto j, auto b) { return pl::idx(b, i, j); })),
        pl::out_specs(pl::BlockSpec<128, 128>([](auto i, auto j, auto) { return pl::idx(i, j); })),
        pltpu::core_axis_name<"core">,
        pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::PARALLEL, pltpu::ARBITRARY>)(x_hbm, o_hbm);
  });
  auto o = k(x);
  for (int i = 0; i < 256; i += 17)
    for (int j = 0; j < 256; j += 13) {
      float expected = 0;
      for (int b = 0; b < 8; ++b) expected += x(b, i, j);
      REQUIRE(o(i, j) == expected);
    }
}

TEST_CASE("emit_pipeline: an unchanged input block is not fetched again, so body writes to it persist",
          "[pipeline]") {
  // The input block index is (0, 0) on every step: the body keeps seeing the same slot.
  auto x = pl::Array<float, 8, 128>::full(1.0f);
  pl::Array<float, 8, 4 * 128> out;
  auto k = pl::kernel(pl::like(out), pl::mesh<mesh<1>>)([](auto x_hbm, auto o_hbm) {
    pltpu::emit_pipeline(
        [](auto xv, auto ov) {
          xv(0, 0) += 1;
          for_each_2d(ov, [&](auto i, auto j) { ov(i, j) = xv(0, 0); });
        },
        pl::grid<4>, pl::in_specs(pl::BlockSpec<8, 128>([](auto) { return pl::idx(0, 0); })),
        pl::out_specs(pl::BlockSpec<8, 128>([](auto j) { return pl::idx(0, j); })), pltpu::core_axis_name<"core">,
        pltpu::dimension_semantics<pltpu::ARBITRARY>)(x_hbm, o_hbm);
  });
  auto o = k(x);
  for (int j = 0; j < 4; ++j) REQUIRE(o(3, j * 128 + 5) == static_cast<float>(2 + j));
  REQUIRE(x(0, 0) == 1.0f);  // HBM input untouched
}

TEST_CASE("emit_pipeline: output blocks are never loaded from HBM, unwritten elements are poisoned",
          "[pipeline]") {
  pl::Array<float, 8, 256> out;
  auto k = pl::kernel(pl::like(out), pl::mesh<mesh<1>>)([](auto o_hbm) {
    pltpu::emit_pipeline([](auto ov) { ov(0, 0) = 1.0f; }, pl::grid<2>,
                         pl::out_specs(pl::BlockSpec<8, 128>([](auto j) { return pl::idx(0, j); })))(o_hbm);
  });
  auto o = k();
  REQUIRE(o(0, 0) == 1.0f);
  REQUIRE(o(0, 128) == 1.0f);
  if constexpr (pl::checked_mode) {
    REQUIRE(std::isnan(o(1, 1)));
    REQUIRE(std::isnan(o(7, 255)));
  }
}

TEST_CASE("emit_pipeline: ragged input blocks are poisoned past the array's end", "[pipeline]") {
  auto x = pl::Array<float, 12, 128>::full(1.0f);
  pl::Array<float, 16, 128> seen;  // what the body saw in the last block, rows 8..15
  auto k = pl::kernel(pl::like(seen), pl::mesh<mesh<1>>)([](auto x_hbm, auto o_hbm) {
    pltpu::emit_pipeline([](auto xv, auto ov) { for_each_2d(ov, [&](auto i, auto j) { ov(i, j) = xv(i, j); }); },
                         pl::grid<2>, pl::in_specs(pl::BlockSpec<8, 128>([](auto i) { return pl::idx(i, 0); })),
                         pl::out_specs(pl::BlockSpec<8, 128>([](auto i) { return pl::idx(i, 0); })))(x_hbm, o_hbm);
  });
  auto o = k(x);
  REQUIRE(o(11, 3) == 1.0f);
  if constexpr (pl::checked_mode) REQUIRE(std::isnan(o(12, 3)));
}

TEST_CASE("emit_pipeline: ragged output blocks drop the elements past the array's end", "[pipeline]") {
  pl::Array<float, 10, 130> out;
  auto k = pl::kernel(pl::like(out), pl::mesh<mesh<2>>)([](auto o_hbm) {
    pltpu::emit_pipeline(
        [](auto ov) {
          for_each_2d(ov, [&](auto i, auto j) {
            ov(i, j) = static_cast<float>((pl::program_id(0) * 8 + i) * 1000 + pl::program_id(1) * 128 + j);
          });
        },
        pl::grid<2, 2>, pl::out_specs(pl::BlockSpec<8, 128>(ij)), pltpu::core_axis_name<"core">,
        pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::PARALLEL>)(o_hbm);
  });
  auto o = k();
  for (int i = 0; i < 10; ++i)
    for (int j = 0; j < 130; ++j) REQUIRE(o(i, j) == static_cast<float>(i * 1000 + j));
}

TEST_CASE("emit_pipeline: Element dims take element offsets", "[pipeline]") {
  // Overlapping windows: step i sees rows [4i, 4i + 8) of x.
  auto x = pl::Array<float, 16, 128>::generate([](auto i, auto j) { return static_cast<float>(i * 1000 + j); });
  pl::Array<float, 3 * 8, 128> out;
  auto k = pl::kernel(pl::like(out), pl::mesh<mesh<1>>)([](auto x_hbm, auto o_hbm) {
    pltpu::emit_pipeline([](auto xv, auto ov) { for_each_2d(ov, [&](auto i, auto j) { ov(i, j) = xv(i, j); }); },
                         pl::grid<3>,
                         pl::in_specs(pl::BlockSpec<pl::Element(8), 128>([](auto i) { return pl::idx(4 * i, 0); })),
                         pl::out_specs(pl::BlockSpec<8, 128>([](auto i) { return pl::idx(i, 0); })))(x_hbm, o_hbm);
  });
  auto o = k(x);
  for (int step = 0; step < 3; ++step)
    for (int r = 0; r < 8; ++r) REQUIRE(o(step * 8 + r, 9) == x(4 * step + r, 9));
}

TEST_CASE("emit_pipeline: dynamic grids run the same schedule", "[pipeline]") {
  auto x = pl::Array<float, pl::dyn, 128>::generate([](auto i, auto j) { return static_cast<float>(i + j); }, 40);
  for (int cores : {1, 2}) {
    auto body = [](auto x_hbm, auto o_hbm) {
      pl::index_t const blocks = x_hbm.extent(0) / 8;
      pltpu::emit_pipeline([](auto xv, auto ov) { for_each_2d(ov, [&](auto i, auto j) { ov(i, j) = xv(i, j) + 1; }); },
                           pl::grid<pl::dyn>(blocks),
                           pl::in_specs(pl::BlockSpec<8, 128>([](auto i) { return pl::idx(i, 0); })),
                           pl::out_specs(pl::BlockSpec<8, 128>([](auto i) { return pl::idx(i, 0); })),
                           pltpu::core_axis_name<"core">, pltpu::dimension_semantics<pltpu::PARALLEL>)(x_hbm, o_hbm);
    };
    auto o = cores == 1 ? pl::kernel(pl::like(x), pl::mesh<mesh<1>>)(body)(x) : pl::kernel(pl::like(x), pl::mesh<mesh<2>>)(body)(x);
    for (int i = 0; i < 40; ++i) REQUIRE(o(i, 100) == x(i, 100) + 1);
  }
}

TEST_CASE("emit_pipeline: RevisitMode::ANY restores a revisited output block", "[pipeline]") {
  // Steps alternate between output blocks 0 and 1; each step adds 1 to its block.
  pl::Array<float, 8, 256> out;
  auto k = pl::kernel(pl::like(out), pl::mesh<mesh<1>>)([](auto o_hbm) {
    pltpu::emit_pipeline(
        [](auto ov) {
          pl::when(pl::program_id(0) < 2, [&] { for_each_2d(ov, [&](auto i, auto j) { ov(i, j) = 0; }); });
          for_each_2d(ov, [&](auto i, auto j) { ov(i, j) += 1; });
        },
        pl::grid<6>,
        pl::out_specs(pl::BlockSpec<8, 128>([](auto s) { return pl::idx(0, s % 2); }, pl::Buffered<1, pl::RevisitMode::ANY>)))(
        o_hbm);
  });
  auto o = k();
  REQUIRE(o(3, 5) == 3.0f);
  REQUIRE(o(3, 200) == 3.0f);
}

TEST_CASE("emit_pipeline: run-time errors name the operand, grid point and core", "[pipeline][errors]") {
  SECTION("a block index out of range") {
    pl::Array<float, 8, 256> out;
    auto k = pl::kernel(pl::like(out), pl::mesh<mesh<1>>)([](auto o_hbm) {
      pltpu::emit_pipeline([](auto) {}, pl::grid<pl::dyn>(3),
                           pl::out_specs(pl::BlockSpec<8, 128>([](auto i) { return pl::idx(0, i); })))(o_hbm);
    });
    REQUIRE_THROWS_WITH(k(), Catch::Contains("out_specs[0] maps grid point (2,) to block index (0, 2)") &&
                                 Catch::Contains("extent 256") && Catch::Contains("core 0"));
  }
  SECTION("an output block revisited after another") {
    pl::Array<float, 8, 256> out;
    auto k = pl::kernel(pl::like(out), pl::mesh<mesh<1>>)([](auto o_hbm) {
      pltpu::emit_pipeline([](auto) {}, pl::grid<pl::dyn>(4),
                           pl::out_specs(pl::BlockSpec<8, 128>([](auto i) { return pl::idx(0, i % 2); })))(o_hbm);
    });
    REQUIRE_THROWS_WITH(k(), Catch::Contains("out_specs[0] revisits block (0, 0)"));
  }
  SECTION("two cores writing one output block") {
    pl::Array<float, 8, 128> out;
    auto k = pl::kernel(pl::like(out), pl::mesh<mesh<2>>)([](auto o_hbm) {
      pltpu::emit_pipeline([](auto) {}, pl::grid<pl::dyn>(2),
                           pl::out_specs(pl::BlockSpec<8, 128>([](auto) { return pl::idx(0, 0); })),
                           pltpu::core_axis_name<"core">, pltpu::dimension_semantics<pltpu::PARALLEL>)(o_hbm);
    });
    if constexpr (pl::checked_mode) REQUIRE_THROWS_WITH(k(), Catch::Contains("written by core 0 and core 1"));
  }
  SECTION("several cores and no PARALLEL axis") {
    pl::Array<float, 8, 128> out;
    auto k = pl::kernel(pl::like(out), pl::mesh<mesh<2>>)([](auto o_hbm) {
      pltpu::emit_pipeline([](auto) {}, pl::grid<pl::dyn>(1),
                           pl::out_specs(pl::BlockSpec<8, 128>([](auto) { return pl::idx(0, 0); })),
                           pltpu::core_axis_name<"core">, pltpu::dimension_semantics<pltpu::ARBITRARY>)(o_hbm);
    });
    REQUIRE_THROWS_WITH(k(), Catch::Contains("pallas::emit_pipeline: several cores share the grid but no axis is PARALLEL (2 cores)"));
  }
  SECTION("an error in the body names the grid point") {
    pl::Array<float, 8, 256> out;
    auto k = pl::kernel(pl::like(out), pl::mesh<mesh<1>>)([](auto o_hbm) {
      pltpu::emit_pipeline([](auto ov) { ov.at(pl::ds<4>(pl::program_id(0) * 6)); }, pl::grid<2>,
                           pl::out_specs(pl::BlockSpec<8, 128>([](auto i) { return pl::idx(0, i); })))(o_hbm);
    });
    REQUIRE_THROWS_WITH(k(), Catch::Contains("slice [6, 10) leaves dimension 0 of extent 8") &&
                                 Catch::Contains("grid point (1,)"));
  }
}
