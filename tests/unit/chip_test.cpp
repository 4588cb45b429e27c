// pltpu::get_tpu_info() and get_tpu_info_for_chip(): the per-TensorCore facts of every
// generation, against DESIGN.md §2 (from jax/_src/tpu_info.py): v4 2 TCs (megacore),
// 16 MiB VMEM; v5e 1 TC, 128 MiB; v5p 2 TCs (megacore), 64 MiB; v6e 1 TC, 128 MiB; v7x 2
// TCs, each its own device, 64 MiB. SMEM 1 MiB everywhere. Lanes 128, sublanes 8.
#include <pallas/pallas.hpp>

#include <catch2/catch.hpp>

#include <cstdint>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

namespace {
constexpr std::int64_t mib = 1024 * 1024;
}

// In a constant expression, as the quickstart's iota uses it for an output shape.
constexpr auto info = pltpu::get_tpu_info();
static_assert(info.num_cores == 2);
using iota_out = pl::ShapeDtypeStruct<float, 128 * info.num_cores>;
static_assert(iota_out::shape_type::static_size() == 256);

TEST_CASE("get_tpu_info: the chip in force is v5p, usable in constant expressions", "[chip]") {
  STATIC_REQUIRE(pltpu::default_chip == pltpu::ChipVersion::TPU_V5P);
  constexpr pltpu::TpuInfo i = pltpu::get_tpu_info();
  STATIC_REQUIRE(i.chip_version == pltpu::ChipVersion::TPU_V5P);
  STATIC_REQUIRE(i.num_cores == 2);
  STATIC_REQUIRE(i.vmem_capacity_bytes == 64 * mib);
  STATIC_REQUIRE(i.smem_capacity_bytes == 1 * mib);
  STATIC_REQUIRE(i.num_lanes == 128);
  STATIC_REQUIRE(i.num_sublanes == 8);
  STATIC_REQUIRE(i.is_megacore());
  STATIC_REQUIRE(!i.is_lite());
  // The same value as asking for v5p by name.
  constexpr pltpu::TpuInfo named = pltpu::get_tpu_info_for_chip(pltpu::ChipVersion::TPU_V5P);
  STATIC_REQUIRE(named.num_cores == i.num_cores);
  STATIC_REQUIRE(named.vmem_capacity_bytes == i.vmem_capacity_bytes);
  STATIC_REQUIRE(named.generation == 5);
}

TEST_CASE("get_tpu_info_for_chip: the five generations", "[chip]") {
  struct expected {
    pltpu::ChipVersion chip;
    int generation;
    int num_cores;           // TensorCores one device (one kernel) runs on
    int num_physical_cores;  // TensorCores on the chip
    std::int64_t vmem;
    bool megacore;
    bool lite;
  };
  // clang-format off
  constexpr expected table[] = {
      {pltpu::ChipVersion::TPU_V4,  4, 2, 2,  16 * mib, true,  false},
      {pltpu::ChipVersion::TPU_V5E, 5, 1, 1, 128 * mib, false, true},
      {pltpu::ChipVersion::TPU_V5P, 5, 2, 2,  64 * mib, true,  false},
      {pltpu::ChipVersion::TPU_V6E, 6, 1, 1, 128 * mib, false, true},
      {pltpu::ChipVersion::TPU_7X,  7, 1, 2,  64 * mib, false, false},
  };
  // clang-format on
  for (auto const& e : table) {
    auto const i = pltpu::get_tpu_info_for_chip(e.chip);
    INFO("generation " << e.generation << ", " << i.device_kind);
    CHECK(i.chip_version == e.chip);
    CHECK(i.generation == e.generation);
    CHECK(i.num_cores == e.num_cores);
    CHECK(i.num_physical_cores == e.num_physical_cores);
    CHECK(i.vmem_capacity_bytes == e.vmem);
    CHECK(i.smem_capacity_bytes == 1 * mib);
    CHECK(i.num_lanes == 128);
    CHECK(i.num_sublanes == 8);
    CHECK(i.is_megacore() == e.megacore);
    CHECK(i.is_lite() == e.lite);
    CHECK(i.is_split_chip() == (e.num_physical_cores > e.num_cores));
    CHECK(i.vmem_capacity_bytes <= pltpu::max_vmem_capacity_bytes);
    CHECK_FALSE(i.device_kind.empty());
  }
  // v7x: two TensorCores on the chip, each its own device.
  STATIC_REQUIRE(pltpu::get_tpu_info_for_chip(pltpu::ChipVersion::TPU_7X).is_split_chip());
}
