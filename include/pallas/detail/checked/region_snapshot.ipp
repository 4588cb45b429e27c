// SPDX-License-Identifier: Apache-2.0
#pragma once
// The region snapshots' definitions, compiled once per program under separate compilation.

#include <pallas/detail/checked/region_snapshot.hpp>

#include <cstring>

namespace pallas::detail {

PALLAS_DECL std::uint64_t hash_region(region const& r) noexcept {
  std::uint64_t a[4] = {1, 2, 3, 4}, b[4] = {0, 0, 0, 0};
  std::uint64_t tail = 0xcbf29ce484222325ull;
  auto mix = [&](std::byte const* p, std::int64_t n) {
    std::int64_t k = 0;
    for (; k + 32 <= n; k += 32) {
      std::uint64_t w[4];
      std::memcpy(w, p + k, 32);
      for (int l = 0; l < 4; ++l) {
        a[l] += w[l];
        b[l] += a[l];
      }
    }
    for (; k < n; ++k) tail = (tail ^ static_cast<std::uint64_t>(p[k])) * 0x100000001b3ull;
    tail = (tail ^ static_cast<std::uint64_t>(n)) * 0x100000001b3ull;
  };
  if (!r.empty()) {
    if (r.rank == 0) {
      mix(r.base, r.run);
    } else {
      std::int64_t const n = r.runs();
      for (std::int64_t k = 0; k < n; ++k) mix(r.run_start(k), r.run);
    }
  }
  std::uint64_t h = tail;
  for (int l = 0; l < 4; ++l) {
    h = (h ^ a[l]) * 0x9e3779b97f4a7c15ull;
    h = (h ^ b[l]) * 0x9e3779b97f4a7c15ull;
    h ^= h >> 31;
  }
  return h;
}

PALLAS_DECL bool region_holds(region const& r, std::byte const* pattern, std::int64_t element_bytes) noexcept {
  if (r.empty()) return true;
  std::byte line[256];  // 256 is a multiple of every element size (1, 2, 4, 8)
  std::memcpy(line, pattern, static_cast<std::size_t>(element_bytes));
  for (std::int64_t filled = element_bytes; filled < 256; filled *= 2)
    std::memcpy(line + filled, line, static_cast<std::size_t>(filled));
  auto holds = [&](std::byte const* p, std::int64_t n) {
    for (std::int64_t k = 0; k < n; k += 256) {
      std::int64_t const len = n - k < 256 ? n - k : 256;
      if (std::memcmp(p + k, line, static_cast<std::size_t>(len)) != 0) return false;
    }
    return true;
  };
  if (r.rank == 0) return holds(r.base, r.run);
  for (std::int64_t k = 0, n = r.runs(); k < n; ++k)
    if (!holds(r.run_start(k), r.run)) return false;
  return true;
}

}  // namespace pallas::detail
