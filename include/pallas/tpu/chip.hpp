// SPDX-License-Identifier: Apache-2.0
#pragma once
// The TPU generations and their per-TensorCore facts (jax's `pltpu.get_tpu_info()`).
// The chip in force is v5p unless PALLAS_DEFAULT_CHIP names another
// (`-DPALLAS_DEFAULT_CHIP=TPU_V5E`); a mesh may choose its own.

#include <cstdint>
#include <string_view>

namespace pallas::tpu {

/// The TPU generations (`pltpu.ChipVersion`).
enum class ChipVersion { TPU_V4, TPU_V5E, TPU_V5P, TPU_V6E, TPU_7X };

/// Facts of one TensorCore of a chip. Values are per TensorCore, as in jax.
struct TpuInfo {
  ChipVersion chip_version;  ///< the generation
  int generation;  ///< 4, 5, 6, 7
  /// TensorCores a kernel runs on (one JAX device): 2 on the megacore chips v4 and v5p; 1
  /// elsewhere (each v7x TensorCore is its own device).
  int num_cores;
  int num_physical_cores;  ///< TensorCores on the chip
  int num_lanes;  ///< vector lanes (128)
  int num_sublanes;  ///< vector sublanes (8)
  int mxu_column_size;  ///< the matrix unit's width
  int num_mxus;  ///< matrix units per core
  std::int64_t vmem_capacity_bytes;  ///< VMEM per core
  std::int64_t smem_capacity_bytes;  ///< SMEM per core
  std::int64_t cmem_capacity_bytes;  ///< CMEM (v4 only)
  std::int64_t hbm_capacity_bytes;  ///< HBM per core
  double mem_bw_bytes_per_second;  ///< HBM bandwidth per core
  double bf16_ops_per_second;  ///< peak bf16 FLOP/s per core
  std::string_view device_kind;  ///< jax's device_kind string

  /// Two TensorCores per device (v4, v5p).
  constexpr bool is_megacore() const noexcept { return num_cores > 1; }
  /// The "lite" chips (v5e, v6e).
  constexpr bool is_lite() const noexcept {
    return chip_version == ChipVersion::TPU_V5E || chip_version == ChipVersion::TPU_V6E;
  }
  /// Each TensorCore its own device (v7x).
  constexpr bool is_split_chip() const noexcept { return num_physical_cores > num_cores; }
};

/// The facts of a chip generation.
constexpr TpuInfo get_tpu_info_for_chip(ChipVersion chip) noexcept {
  constexpr std::int64_t mib = 1024 * 1024;
  switch (chip) {
    case ChipVersion::TPU_V4:
      return {chip, 4, 2, 2, 128, 8, 128, 4, 16 * mib, 1 * mib, 67'000'000, 17'200'000'000,
              615e9, 137.5e12, "TPU v4"};
    case ChipVersion::TPU_V5E:
      return {chip, 5, 1, 1, 128, 8, 128, 4, 128 * mib, 1 * mib, 0, 17'200'000'000,
              820e9, 197e12, "TPU v5 lite"};
    case ChipVersion::TPU_V5P:
      return {chip, 5, 2, 2, 128, 8, 128, 4, 64 * mib, 1 * mib, 0, 51'500'000'000,
              1.23e12, 229.5e12, "TPU v5"};
    case ChipVersion::TPU_V6E:
      return {chip, 6, 1, 1, 128, 8, 256, 2, 128 * mib, 1 * mib, 0, 34'400'000'000,
              1.64e12, 920e12, "TPU v6 lite"};
    case ChipVersion::TPU_7X:
      return {chip, 7, 1, 2, 128, 8, 256, 2, 64 * mib, 1 * mib, 0, 103'000'000'000,
              3.7e12, 1.155e15, "TPU7x"};
  }
  return get_tpu_info_for_chip(ChipVersion::TPU_V5P);
}

#ifndef PALLAS_DEFAULT_CHIP
#  define PALLAS_DEFAULT_CHIP TPU_V5P
#endif

/// The chip in force for meshes that don't name one.
inline constexpr ChipVersion default_chip = ChipVersion::PALLAS_DEFAULT_CHIP;

/// The facts of the chip in force; usable in constant expressions:
/// `constexpr auto info = pltpu::get_tpu_info(); pl::ShapeDtypeStruct<float, 128 * info.num_cores>`.
constexpr TpuInfo get_tpu_info() noexcept { return get_tpu_info_for_chip(default_chip); }

/// The largest VMEM of any generation: what a core's arena reserves.
inline constexpr std::int64_t max_vmem_capacity_bytes = std::int64_t{128} * 1024 * 1024;

}  // namespace pallas::tpu
