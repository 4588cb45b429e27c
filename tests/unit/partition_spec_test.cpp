// pl::shard_map with PartitionSpecs: global inputs split by pl::P<...> along the mesh
// axes, global outputs assembled from the chips' shards, against naive slicing and
// concatenation; 1-D meshes of 2 and 4 chips and a 2x2 mesh, size-1 dimensions included.
#include <pallas/pallas.hpp>

#include <vector>

#include <catch2/catch.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

namespace {

/// Every element of the output is the matching input element plus 1000 * the chip's index
/// (the chip's row-major number on the mesh, from its coordinates).
template <class ChipMesh>
float chip_number() {
  if constexpr (ChipMesh::num_axes == 1) return static_cast<float>(pl::axis_index<"x">());
  else return static_cast<float>(pl::axis_index<"x">() * ChipMesh::axis_sizes[1] + pl::axis_index<"y">());
}

template <class ChipMesh, class Shard>
auto add_chip_kernel() {
  constexpr pl::index_t r = Shard::shape[0], c = Shard::shape[1];
  return pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, r, c>>, pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                    pl::scratch_types<pltpu::VMEM<float, r, c>>)([](auto in, auto out, auto v) {
    float const chip = chip_number<ChipMesh>();
    pltpu::sync_copy(in, v);
    for (pl::index_t i = 0; i < r; ++i)
      for (pl::index_t j = 0; j < c; ++j) v(i, j) = v(i, j) + 1000.0f * chip;
    pltpu::sync_copy(v, out);
  });
}

template <class A>
A iota() {
  A a;
  for (pl::index_t k = 0; k < a.size(); ++k) a.data()[k] = static_cast<float>(k);
  return a;
}

/// Splits a (R, C) global over rows by `rs` chips and columns by `cs` chips (chip number
/// r * cs + c for block (r, c)), runs the kernel, and checks element (i, j) against the
/// input plus 1000 * the number of the chip that owns its block.
template <class ChipMesh, class RowSpec, pl::index_t R, pl::index_t C, int Rs, int Cs>
void check_2d(auto specs_in, auto specs_out) {
  using global = pl::Array<float, R, C>;
  using shard = pl::Array<float, R / Rs, C / Cs>;
  global const x = iota<global>();
  auto k = add_chip_kernel<ChipMesh, shard>();
  global const y = pl::shard_map<ChipMesh>(k, specs_in, specs_out)(x);
  for (pl::index_t i = 0; i < R; ++i)
    for (pl::index_t j = 0; j < C; ++j) {
      pl::index_t const owner = (i / (R / Rs)) * Cs + j / (C / Cs);
      REQUIRE(y(i, j) == x(i, j) + 1000.0f * static_cast<float>(owner));
    }
}

}  // namespace

TEST_CASE("shard_map specs: P<\"x\"> splits dim 0 and concatenates the outputs, 2 and 4 chips", "[device_mesh]") {
  using x = pl::P<"x">;
  check_2d<pl::device_mesh<"x", 2>, x, 8, 128, 2, 1>(pl::shard_in_specs<x>, pl::shard_out_specs<x>);
  check_2d<pl::device_mesh<"x", 4>, x, 8, 128, 4, 1>(pl::shard_in_specs<x>, pl::shard_out_specs<x>);
  check_2d<pl::device_mesh<"x", 4>, x, 4, 1, 4, 1>(pl::shard_in_specs<x>, pl::shard_out_specs<x>);  // size-1 shards
  check_2d<pl::device_mesh<"x", 2>, x, 2, 3, 2, 1>(pl::shard_in_specs<x>, pl::shard_out_specs<x>);
  check_2d<pl::device_mesh<"x", 1>, x, 1, 1, 1, 1>(pl::shard_in_specs<x>, pl::shard_out_specs<x>);
}

TEST_CASE("shard_map specs: P<nullptr, \"x\"> splits dim 1", "[device_mesh]") {
  using cols = pl::P<nullptr, "x">;
  check_2d<pl::device_mesh<"x", 2>, cols, 3, 8, 1, 2>(pl::shard_in_specs<cols>, pl::shard_out_specs<cols>);
  check_2d<pl::device_mesh<"x", 4>, cols, 1, 4, 1, 4>(pl::shard_in_specs<cols>, pl::shard_out_specs<cols>);
}

TEST_CASE("shard_map specs: P<\"x\", \"y\"> on a 2x2 mesh splits both dims", "[device_mesh]") {
  using mesh = pl::device_mesh<"x", 2, "y", 2>;
  using xy = pl::P<"x", "y">;
  check_2d<mesh, xy, 4, 6, 2, 2>(pl::shard_in_specs<xy>, pl::shard_out_specs<xy>);
  check_2d<mesh, xy, 2, 2, 2, 2>(pl::shard_in_specs<xy>, pl::shard_out_specs<xy>);  // 1x1 shards
  using yx = pl::P<"y", "x">;  // dim 0 over 'y': block (r, c) is chip c * 2 + r
  pl::Array<float, 4, 2> const x = iota<pl::Array<float, 4, 2>>();
  auto k = add_chip_kernel<mesh, pl::Array<float, 2, 1>>();
  auto const y = pl::shard_map<mesh>(k, pl::shard_in_specs<yx>, pl::shard_out_specs<yx>)(x);
  for (pl::index_t i = 0; i < 4; ++i)
    for (pl::index_t j = 0; j < 2; ++j) REQUIRE(y(i, j) == x(i, j) + 1000.0f * static_cast<float>(j * 2 + i / 2));
}

TEST_CASE("shard_map specs: replicated inputs and outputs, several of each", "[device_mesh]") {
  // x split over 'x', w whole on every chip; out 0 split over 'x', out 1 replicated (chip 0's).
  using mesh = pl::device_mesh<"x", 4>;
  pl::Array<float, 8, 2> const x = iota<pl::Array<float, 8, 2>>();
  pl::Array<float, 1, 2> w;
  w(0, 0) = 3.0f;
  w(0, 1) = -1.0f;
  auto k = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 2, 2>, pl::ShapeDtypeStruct<float, 1, 2>>,
                      pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                      pl::scratch_types<pltpu::VMEM<float, 2, 2>, pltpu::VMEM<float, 1, 2>>)(
      [](auto xs, auto ws, auto prod, auto tag, auto xv, auto wv) {
        float const chip = static_cast<float>(pl::axis_index<"x">());
        pltpu::sync_copy(xs, xv);
        pltpu::sync_copy(ws, wv);
        for (pl::index_t i = 0; i < 2; ++i)
          for (pl::index_t j = 0; j < 2; ++j) xv(i, j) = xv(i, j) * wv(0, j);
        pltpu::sync_copy(xv, prod);
        wv(0, 1) = wv(0, 0);
        wv(0, 0) = 10.0f + chip;
        pltpu::sync_copy(wv, tag);
      });
  auto const [p, t] = pl::shard_map<mesh>(k, pl::shard_in_specs<pl::P<"x">, pl::P<>>,
                                          pl::shard_out_specs<pl::P<"x">, pl::P<nullptr, nullptr>>)(x, w);
  for (pl::index_t i = 0; i < 8; ++i)
    for (pl::index_t j = 0; j < 2; ++j) REQUIRE(p(i, j) == x(i, j) * w(0, j));
  CHECK(t(0, 0) == 10.0f);  // chip 0's
  CHECK(t(0, 1) == 3.0f);
}

TEST_CASE("shard_map specs: a 2x2 mesh with one axis unused replicates along it", "[device_mesh]") {
  // Split over 'x' only: chips (x, 0) and (x, 1) get the same rows; the output is (x, 0)'s.
  using mesh = pl::device_mesh<"x", 2, "y", 2>;
  pl::Array<float, 4, 3> const x = iota<pl::Array<float, 4, 3>>();
  auto k = add_chip_kernel<mesh, pl::Array<float, 2, 3>>();
  auto const y = pl::shard_map<mesh>(k, pl::shard_in_specs<pl::P<"x">>, pl::shard_out_specs<pl::P<"x">>)(x);
  for (pl::index_t i = 0; i < 4; ++i)
    for (pl::index_t j = 0; j < 3; ++j) REQUIRE(y(i, j) == x(i, j) + 1000.0f * static_cast<float>((i / 2) * 2));
}
