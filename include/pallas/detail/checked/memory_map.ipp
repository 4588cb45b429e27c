// SPDX-License-Identifier: Apache-2.0
#pragma once
// memory_map's definitions, compiled once per program under separate compilation.

#include <pallas/detail/checked/memory_map.hpp>

#include <sstream>

namespace pallas::detail {

PALLAS_DECL std::string memory_map::address(void const* p) const {
  auto const* b = static_cast<std::byte const*>(p);
  std::ostringstream out;
  switch (space_of(p)) {
    case memory_space::vmem: out << "VMEM+" << (b - vmem); break;
    case memory_space::smem: out << "SMEM+" << (b - smem); break;
    default: out << "HBM " << p; break;
  }
  return out.str();
}

}  // namespace pallas::detail
