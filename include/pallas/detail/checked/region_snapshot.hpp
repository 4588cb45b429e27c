// SPDX-License-Identifier: Apache-2.0
#pragma once
// Snapshots of a region's bytes, for the writes checked mode's access hooks do not see
// (element stores): a copy's source is hashed at start() and verified when it retires,
// its destination is hashed when its bytes move, or poisoned at start() and verified to
// still hold the poison when they move (checked_state.hpp).

#include <cstddef>
#include <cstdint>

#include <pallas/detail/checked/checked_access.hpp>

namespace pallas::detail {

/// A 64-bit checksum of a region's bytes (source and destination snapshots): four
/// independent Fletcher-style lanes over 8-byte words, position-sensitive, at memory speed.
std::uint64_t hash_region(region const& r) noexcept;

/// Whether every element of the region holds `pattern` (element_bytes bytes).
bool region_holds(region const& r, std::byte const* pattern, std::int64_t element_bytes) noexcept;

}  // namespace pallas::detail

#if PALLAS_DEFINE_RUNTIME
#  include <pallas/detail/checked/region_snapshot.ipp>
#endif
