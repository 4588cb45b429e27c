// SPDX-License-Identifier: Apache-2.0
#pragma once
// Where a core's VMEM and SMEM lie, so checked mode's messages can name an address by the
// memory it is in ("VMEM+4096") and tell core-local memory from HBM.

#include <cstddef>
#include <cstdint>
#include <string>

#include <pallas/config.hpp>
#include <pallas/memory_space.hpp>

namespace pallas::detail {

/// Names a memory address by the core memory it lies in.
struct memory_map {
  std::byte const* vmem = nullptr;
  std::int64_t vmem_bytes = 0;
  std::byte const* smem = nullptr;
  std::int64_t smem_bytes = 0;

  memory_space space_of(void const* p) const noexcept {
    auto const* b = static_cast<std::byte const*>(p);
    if (vmem && b >= vmem && b < vmem + vmem_bytes) return memory_space::vmem;
    if (smem && b >= smem && b < smem + smem_bytes) return memory_space::smem;
    return memory_space::hbm;
  }
  bool is_local(void const* p) const noexcept { return space_of(p) != memory_space::hbm; }

  /// "VMEM+4096" / "SMEM+0" / "HBM 0x7f12..."
  std::string address(void const* p) const;
};

}  // namespace pallas::detail

#if PALLAS_DEFINE_RUNTIME
#  include <pallas/detail/checked/memory_map.ipp>
#endif
