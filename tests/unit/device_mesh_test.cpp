// A mesh of chips: pl::shard_map runs a pl::kernel on every chip of a pl::device_mesh with
// one Array per chip; pl::axis_index / axis_size give the chip's coordinates (1-D and 2-D,
// row-major; also the checked forms that name the meshes) and the core axis keeps meaning the chip's own cores; emit_pipeline splits
// each chip's grid among that chip's cores; a failure on one chip stops every chip.
#include <pallas/pallas.hpp>

#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "../support/error_of.hpp"
#include "watchdog.hpp"

namespace pl = pallas;
namespace pltpu = pallas::tpu;

namespace {

using pallas_test::error_of;

using Catch::Matchers::Contains;

/// Every core writes (its chip's coordinates, its core index) into its row of its chip's
/// output: row k of chip c holds 1000 * x + 100 * y + k.
template <class ChipMesh, int Cores, bool TwoD>
void check_coordinates() {
  using CoreMesh = pltpu::TensorCoreMesh<"core", Cores>;
  auto k = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, Cores, 128>>, pl::mesh<CoreMesh>,
                      pl::scratch_types<pltpu::VMEM<float, 128>>)(
      [](auto o, auto row) {
        // The checked forms (the meshes named) give what the unchecked ones give.
        pl::index_t const core = pl::axis_index<"core", CoreMesh>();
        pl::index_t value = 1000 * pl::axis_index<"x", ChipMesh, CoreMesh>() + core;
        if constexpr (TwoD) value += 100 * pl::axis_index<"y", ChipMesh>();
        for (pl::index_t e = 0; e < 128; ++e) row(e) = static_cast<float>(value);
        if (pl::axis_size<"core">() != Cores || pl::axis_size<"x">() != ChipMesh::axis_sizes[0]) row(0) = -1.0f;
        if (pl::axis_size<"core", ChipMesh, CoreMesh>() != Cores || pl::axis_size<"x", ChipMesh>() != ChipMesh::axis_sizes[0] ||
            pl::axis_index<"core">() != core || pl::axis_index<"x">() != pl::axis_index<"x", ChipMesh>())
          row(1) = -1.0f;
        if constexpr (TwoD)
          if (pl::axis_size<"y", CoreMesh, ChipMesh>() != ChipMesh::axis_sizes[1] ||
              pl::axis_index<"y">() != pl::axis_index<"y", ChipMesh>())
            row(2) = -1.0f;
        pltpu::sync_copy(row, o.at(core));
      });
  std::vector<pl::Array<float, Cores, 128>> outs = pl::shard_map<ChipMesh>(k)();
  REQUIRE(static_cast<int>(outs.size()) == ChipMesh::num_chips);
  int const ny = TwoD ? ChipMesh::axis_sizes[1] : 1;
  for (int c = 0; c < ChipMesh::num_chips; ++c)
    for (int r = 0; r < Cores; ++r) {
      float const expected = static_cast<float>(1000 * (c / ny) + 100 * (c % ny) + r);
      for (int e = 0; e < 128; ++e) REQUIRE(outs[static_cast<std::size_t>(c)](r, e) == expected);
    }
}

}  // namespace

TEST_CASE("device_mesh: axis_index and axis_size give each chip's coordinates, 1-D", "[device_mesh]") {
  check_coordinates<pl::device_mesh<"x", 1>, 1, false>();
  check_coordinates<pl::device_mesh<"x", 2>, 1, false>();
  check_coordinates<pl::device_mesh<"x", 4>, 2, false>();
  check_coordinates<pl::device_mesh<"x", 8>, 1, false>();
  check_coordinates<pl::device_mesh<"x", 8>, 2, false>();
}

TEST_CASE("device_mesh: 2-D meshes number chips row-major ('y' fastest)", "[device_mesh]") {
  check_coordinates<pl::device_mesh<"x", 2, "y", 2>, 1, true>();
  check_coordinates<pl::device_mesh<"x", 2, "y", 4>, 2, true>();
  check_coordinates<pl::device_mesh<"x", 1, "y", 4>, 1, true>();
  check_coordinates<pl::device_mesh<"x", 4, "y", 1>, 2, true>();
}

TEST_CASE("shard_map: each chip computes on its own shards", "[device_mesh]") {
  constexpr int chips = 4;
  std::vector<pl::Array<float, 16, 128>> xs, ys;
  for (int c = 0; c < chips; ++c) {
    pl::Array<float, 16, 128> x, y;
    for (pl::index_t k = 0; k < x.size(); ++k) {
      x.data()[k] = static_cast<float>((k * 7 + c) % 31);
      y.data()[k] = static_cast<float>(c + 1);
    }
    xs.push_back(x);
    ys.push_back(y);
  }
  auto ij = [](auto i, auto j) { return pl::idx(i, j); };
  // Two outputs: x * y and x + chip; each chip's grid is split between its two cores.
  auto k = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 16, 128>, pl::ShapeDtypeStruct<float, 16, 128>>,
                      pl::mesh<pltpu::TensorCoreMesh<"core", 2>>)([&](auto x_hbm, auto y_hbm, auto p_hbm, auto s_hbm) {
    float const chip = static_cast<float>(pl::axis_index<"x">());
    pltpu::emit_pipeline(
        [chip](auto xv, auto yv, auto pv, auto sv) {
          for (pl::index_t i = 0; i < 8; ++i)
            for (pl::index_t j = 0; j < 128; ++j) {
              pv(i, j) = xv(i, j) * yv(i, j);
              sv(i, j) = xv(i, j) + chip;
            }
        },
        pl::grid<2, 1>, pl::in_specs(pl::BlockSpec<8, 128>(ij), pl::BlockSpec<8, 128>(ij)),
        pl::out_specs(pl::BlockSpec<8, 128>(ij), pl::BlockSpec<8, 128>(ij)), pltpu::core_axis_name<"core">,
        pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::ARBITRARY>)(x_hbm, y_hbm, p_hbm, s_hbm);
  });
  auto outs = pl::shard_map<pl::device_mesh<"x", chips>>(k)(xs, ys);
  REQUIRE(outs.size() == chips);
  for (std::size_t c = 0; c < chips; ++c) {
    auto const& [p, s] = outs[c];
    for (pl::index_t e = 0; e < p.size(); ++e) {
      REQUIRE(p.data()[e] == xs[c].data()[e] * ys[c].data()[e]);
      REQUIRE(s.data()[e] == xs[c].data()[e] + static_cast<float>(c));
    }
  }
}

TEST_CASE("shard_map: misuse is reported", "[device_mesh]") {
  auto k = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 128>>, pl::mesh<pltpu::TensorCoreMesh<"core", 1>>)(
      [](auto, auto) { (void)pl::axis_index<"z">(); });
  std::vector<pl::Array<float, 128>> three(3, pl::Array<float, 128>::full(1.0f));
  CHECK_THAT(error_of<pl::shape_error>([&] { pl::shard_map<pl::device_mesh<"x", 2>>(k)(three); }),
             Contains("input 0 has 3 shards, the mesh has 2 chips"));
  std::vector<pl::Array<float, 128>> two(2, pl::Array<float, 128>::full(1.0f));
  auto const msg = error_of([&] { pl::shard_map<pl::device_mesh<"x", 2, "y", 1>>(k)(two); });
  CHECK_THAT(msg, Contains("no axis named 'z'"));
  CHECK_THAT(msg, Contains("'core', 'x', 'y'"));
  CHECK_THAT(msg, Contains("chip 0 core 0") || Contains("chip 1 core 0"));
}

TEST_CASE("shard_map: a throw on one chip stops every chip and reaches the caller", "[device_mesh]") {
  pallas_test::watchdog dog("a chip's throw", std::chrono::seconds(60));
  for (int cores : {1, 2}) {
    auto body = [](auto, auto sem) {
      // Chip 2 fails; every other core waits for a signal that never comes.
      if (pl::axis_index<"x">() == 2) throw std::runtime_error("chip 2 gave up");
      pl::semaphore_wait(sem);
    };
    std::vector<pl::Array<float, 128>> xs(4, pl::Array<float, 128>::full(0.0f));
    std::string msg;
    try {
      if (cores == 1)
        pl::shard_map<pl::device_mesh<"x", 4>>(pl::kernel(pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                                                          pl::scratch_types<pltpu::SemaphoreType::REGULAR<>>)(body))(xs);
      else
        pl::shard_map<pl::device_mesh<"x", 4>>(pl::kernel(pl::mesh<pltpu::TensorCoreMesh<"core", 2>>,
                                                          pl::scratch_types<pltpu::SemaphoreType::REGULAR<>>)(body))(xs);
    } catch (std::runtime_error const& e) {
      msg = e.what();
    }
    CHECK(msg == "chip 2 gave up");
  }
}
