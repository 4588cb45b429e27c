// SPDX-License-Identifier: Apache-2.0
#pragma once
// The TPU block tiling rule (Mosaic's): the last two block dims divisible by 8 and 128, or
// equal to the array's; 1-D blocks equal to the array, a multiple of 1024, or a power of two
// >= 128 * (32 / bits). emit_pipeline and pallas_call check it at compile time unless
// `pltpu::no_tiling_check` is among their options or PALLAS_TPU_TILING_CHECK is 0 (for
// kernels meant only for CPUs).

namespace pallas::tpu {

/// Skips the TPU tiling rule (block dims divisible by 8 and 128, or the array's): for
/// kernels that only run here.
struct no_tiling_check_t {};
/// The option value: `pltpu::emit_pipeline(..., pltpu::no_tiling_check)`.
inline constexpr no_tiling_check_t no_tiling_check{};

}  // namespace pallas::tpu
