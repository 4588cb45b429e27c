// SPDX-License-Identifier: Apache-2.0
#pragma once
// pltpu::TensorCoreMesh<"core">: the TensorCores of one device as a 1-D mesh.

#include <string_view>
#include <type_traits>

#include <pallas/fixed_string.hpp>
#include <pallas/tpu/chip.hpp>

namespace pallas::tpu {

/// `pltpu.TensorCoreMesh(axis_name, num_cores)`. NumCores = 0 takes the chip's count;
/// Chip defaults to the chip in force (PALLAS_DEFAULT_CHIP, v5p).
template <fixed_string AxisName, int NumCores = 0, ChipVersion Chip = default_chip>
struct TensorCoreMesh {
  static_assert(NumCores >= 0, "pallas::TensorCoreMesh: the core count must be >= 1 (0 takes the chip's)");
  static constexpr TpuInfo info = get_tpu_info_for_chip(Chip);  ///< the chip's facts
  static constexpr int num_cores = NumCores > 0 ? NumCores : info.num_cores;  ///< the cores a kernel runs on
  static constexpr std::string_view axis_name = AxisName.view();  ///< the name of the core axis
  static constexpr ChipVersion chip = Chip;  ///< the chip generation
};

}  // namespace pallas::tpu

namespace pallas::detail {
template <class T>
struct is_tensor_core_mesh : std::false_type {};
template <fixed_string A, int N, tpu::ChipVersion C>
struct is_tensor_core_mesh<tpu::TensorCoreMesh<A, N, C>> : std::true_type {};
}  // namespace pallas::detail

namespace pallas::tpu {

template <class T>
concept Mesh = detail::is_tensor_core_mesh<std::remove_cvref_t<T>>::value;

}  // namespace pallas::tpu
