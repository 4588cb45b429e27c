// SPDX-License-Identifier: Apache-2.0
#pragma once
// Where a Ref's memory lives. The space is part of the Ref's type, so what may be done
// with a ref (compute on it, copy it, signal it) is checked at compile time.

#include <string_view>

namespace pallas {

/// The memory spaces of a TensorCore.
enum class memory_space {
  any,        ///< unconstrained (HBM in practice); only DMAs may touch it
  hbm,        ///< high-bandwidth memory, shared by the cores; only DMAs may touch it
  vmem,       ///< per-core vector memory: blocks are computed on here
  smem,       ///< per-core scalar memory: scalar loads and stores only
  semaphore,  ///< per-core semaphore storage
};

/// `pl.ANY`.
inline constexpr memory_space ANY = memory_space::any;

/// The name Pallas prints for a memory space.
constexpr std::string_view name(memory_space s) noexcept {
  switch (s) {
    case memory_space::any: return "ANY";
    case memory_space::hbm: return "HBM";
    case memory_space::vmem: return "VMEM";
    case memory_space::smem: return "SMEM";
    case memory_space::semaphore: return "SEMAPHORE";
  }
  return "?";
}

/// HBM and ANY refs may only be moved by DMAs, never loaded, stored or computed on.
constexpr bool is_dma_only(memory_space s) noexcept {
  return s == memory_space::any || s == memory_space::hbm;
}

namespace tpu {
/// `pltpu.HBM` (the memory-space constant; `pltpu::VMEM<T, ...>` and `pltpu::SMEM<T, ...>`
/// are scratch types, see scratch.hpp).
inline constexpr memory_space HBM = memory_space::hbm;
inline constexpr memory_space SEMAPHORE = memory_space::semaphore;  ///< `pltpu.SEMAPHORE`

/// `pltpu.MemorySpace.X`: the memory spaces by their Pallas names, for BlockSpecs:
/// `pl::BlockSpec<8>(map, pl::in_memory<pltpu::MemorySpace::SMEM>)`.
struct MemorySpace {
  static constexpr memory_space ANY = memory_space::any;  ///< wherever the operand is (HBM here)
  static constexpr memory_space HBM = memory_space::hbm;  ///< the chip's main memory
  static constexpr memory_space VMEM = memory_space::vmem;  ///< the core's vector memory
  static constexpr memory_space SMEM = memory_space::smem;  ///< the core's scalar memory
  static constexpr memory_space SEMAPHORE = memory_space::semaphore;  ///< semaphores
};
}  // namespace tpu

}  // namespace pallas
