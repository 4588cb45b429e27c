// pltpu::TensorCoreMesh: axis name, core count (explicit, or the chip's), chip; the Mesh
// concept; pl::axis_index / pl::axis_size inside a kernel on such a mesh, and their checked
// forms (the mesh named: an axis it lacks does not compile, tests/compile_fail/).
#include <pallas/pallas.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <string_view>
#include <type_traits>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

TEST_CASE("TensorCoreMesh: axis name and core count", "[mesh]") {
  using m = pltpu::TensorCoreMesh<"core">;
  STATIC_REQUIRE(m::axis_name == std::string_view("core"));
  STATIC_REQUIRE(m::num_cores == 2);  // v5p, the default chip
  STATIC_REQUIRE(m::chip == pltpu::ChipVersion::TPU_V5P);
  STATIC_REQUIRE(m::info.vmem_capacity_bytes == 64 * 1024 * 1024);

  STATIC_REQUIRE(pltpu::TensorCoreMesh<"core", 1>::num_cores == 1);
  STATIC_REQUIRE(pltpu::TensorCoreMesh<"core", 4>::num_cores == 4);
  STATIC_REQUIRE(pltpu::TensorCoreMesh<"x", 3>::axis_name == std::string_view("x"));

  // Core count 0 takes the chip's.
  STATIC_REQUIRE(pltpu::TensorCoreMesh<"core", 0, pltpu::ChipVersion::TPU_V4>::num_cores == 2);
  STATIC_REQUIRE(pltpu::TensorCoreMesh<"core", 0, pltpu::ChipVersion::TPU_V5E>::num_cores == 1);
  STATIC_REQUIRE(pltpu::TensorCoreMesh<"core", 0, pltpu::ChipVersion::TPU_V6E>::num_cores == 1);
  STATIC_REQUIRE(pltpu::TensorCoreMesh<"core", 0, pltpu::ChipVersion::TPU_7X>::num_cores == 1);
  // An explicit count overrides the chip's but keeps its memories.
  using v4x8 = pltpu::TensorCoreMesh<"core", 8, pltpu::ChipVersion::TPU_V4>;
  STATIC_REQUIRE(v4x8::num_cores == 8);
  STATIC_REQUIRE(v4x8::info.vmem_capacity_bytes == 16 * 1024 * 1024);
}

TEST_CASE("TensorCoreMesh: the Mesh concept", "[mesh]") {
  STATIC_REQUIRE(pltpu::Mesh<pltpu::TensorCoreMesh<"core">>);
  STATIC_REQUIRE(pltpu::Mesh<pltpu::TensorCoreMesh<"core", 4> const&>);
  STATIC_REQUIRE(!pltpu::Mesh<int>);
  STATIC_REQUIRE(!pltpu::Mesh<pl::ShapeDtypeStruct<float, 8>>);
}

TEST_CASE("TensorCoreMesh: axis_index and axis_size inside a kernel", "[mesh]") {
  auto check = []<int N>(std::integral_constant<int, N>) {
    auto const out = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<std::int32_t, 2 * N>>,
                                pl::mesh<pltpu::TensorCoreMesh<"core", N>>,
                                pl::scratch_types<pltpu::SMEM<std::int32_t, 2>>)([](auto o_ref, auto s) {
      auto const i = pl::axis_index<"core">();
      s[0] = static_cast<std::int32_t>(i);
      s[1] = static_cast<std::int32_t>(pl::axis_size<"core">());
      pltpu::sync_copy(s, o_ref.at(pl::ds<2>(2 * i)));
    })();
    for (int c = 0; c < N; ++c) {
      CHECK(out(2 * c) == c);
      CHECK(out(2 * c + 1) == N);
    }
  };
  check(std::integral_constant<int, 1>{});
  check(std::integral_constant<int, 2>{});
  check(std::integral_constant<int, 3>{});
  check(std::integral_constant<int, 4>{});

  // Another axis name works the same when the kernel asks for it.
  auto const named = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<std::int32_t, 2>>,
                                pl::mesh<pltpu::TensorCoreMesh<"x", 2>>,
                                pl::scratch_types<pltpu::SMEM<std::int32_t, 1>>)([](auto o_ref, auto s) {
    s[0] = static_cast<std::int32_t>(10 + pl::axis_index<"x">());
    pltpu::sync_copy(s, o_ref.at(pl::ds<1>(pl::axis_index<"x">())));
  })();
  CHECK(named(0) == 10);
  CHECK(named(1) == 11);
}

TEST_CASE("axis_index<\"x\", Mesh>: which meshes have an axis, and the axes spelled for the message", "[mesh]") {
  namespace pd = pl::detail;
  using cores = pltpu::TensorCoreMesh<"core", 2>;
  using chips = pl::device_mesh<"x", 2, "yy", 3>;
  STATIC_REQUIRE(pd::has_axis_v<"core", cores>);
  STATIC_REQUIRE(!pd::has_axis_v<"x", cores>);
  STATIC_REQUIRE(!pd::has_axis_v<"cor", cores>);
  STATIC_REQUIRE(pd::has_axis_v<"yy", chips>);
  STATIC_REQUIRE(!pd::has_axis_v<"y", chips>);
  STATIC_REQUIRE(!pd::has_axis_v<"core", chips>);
  STATIC_REQUIRE(pd::has_axis_v<"core", chips, cores>);
  STATIC_REQUIRE(pd::has_axis_v<"x", cores, chips>);
  STATIC_REQUIRE(!pd::has_axis_v<"z", cores, chips>);
  // A device_mesh's unused axis slots (empty names) are not axes.
  STATIC_REQUIRE(!pd::has_axis_v<"", pl::device_mesh<"x", 4>>);
  STATIC_REQUIRE(pl::AxisMesh<cores> && pl::AxisMesh<chips> && !pl::AxisMesh<int>);

  STATIC_REQUIRE(std::is_same_v<pd::spelled_name<"yy">, pd::axis_name_chars<'y', 'y'>>);
  STATIC_REQUIRE(std::is_same_v<pd::spelled_mesh_axes<cores>, pd::mesh_axes<pd::axis_name_chars<'c', 'o', 'r', 'e'>>>);
  STATIC_REQUIRE(std::is_same_v<pd::spelled_mesh_axes<chips>,
                                pd::mesh_axes<pd::axis_name_chars<'x'>, pd::axis_name_chars<'y', 'y'>>>);
  STATIC_REQUIRE(std::is_same_v<pd::spelled_mesh_axes<pl::device_mesh<"a", 1, "b", 1, "c", 1>>,
                                pd::mesh_axes<pd::axis_name_chars<'a'>, pd::axis_name_chars<'b'>, pd::axis_name_chars<'c'>>>);
}

TEST_CASE("axis_index<\"core\", Mesh> and axis_size inside a kernel give the unchecked forms' values", "[mesh]") {
  using mesh = pltpu::TensorCoreMesh<"core", 3>;
  auto const out = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<std::int32_t, 6>>, pl::mesh<mesh>,
                              pl::scratch_types<pltpu::SMEM<std::int32_t, 2>>)([](auto o_ref, auto s) {
    auto const i = pl::axis_index<"core", mesh>();
    s[0] = static_cast<std::int32_t>(i);
    s[1] = static_cast<std::int32_t>(pl::axis_size<"core", mesh>());
    pltpu::sync_copy(s, o_ref.at(pl::ds<2>(2 * i)));
  })();
  for (int c = 0; c < 3; ++c) {
    CHECK(out(2 * c) == c);
    CHECK(out(2 * c + 1) == 3);
  }
}
