// SPDX-License-Identifier: Apache-2.0
#pragma once
// place's and region's definitions, compiled once per program under separate compilation.

#include <pallas/detail/checked/checked_access.hpp>

namespace pallas::detail {

PALLAS_DECL char const* place::file_name() const noexcept {
  if (!file) return "?";
  char const* base = file;
  for (char const* p = file; *p; ++p)
    if (*p == '/' || *p == '\\') base = p + 1;
  return base;
}

PALLAS_DECL region region::strided(void const* p, int rank_in, std::int64_t const* ext, std::int64_t const* str,
                                    std::int64_t element_bytes) noexcept {
  region r;
  r.base = static_cast<std::byte const*>(p);
  r.lo = r.hi = r.base;
  std::int64_t e[max_rank]{}, s[max_rank]{};
  int n = 0;
  for (int d = 0; d < rank_in && d < max_rank; ++d) {
    if (ext[d] == 0) return r;  // no element at all
    if (ext[d] == 1) continue;
    e[n] = ext[d];
    s[n] = str[d] * element_bytes;
    ++n;
  }
  // The innermost dimensions that are contiguous merge into one run.
  r.run = element_bytes;
  while (n > 0 && s[n - 1] == r.run) {
    r.run *= e[n - 1];
    --n;
  }
  r.rank = n;
  std::int64_t span = r.run;  // bytes from the first byte to the end of the last run
  for (int d = n; d-- > 0;) {
    r.extents[d] = e[d];
    r.strides[d] = s[d];
    if (s[d] < span) r.ordered = false;  // runs of dimension d interleave or overlap
    span += (e[d] - 1) * s[d];
  }
  r.hi = r.base + span;
  return r;
}

PALLAS_DECL std::byte const* region::run_start(std::int64_t k) const noexcept {
  std::int64_t off = 0;
  for (int d = rank; d-- > 0;) {
    off += (k % extents[d]) * strides[d];
    k /= extents[d];
  }
  return base + off;
}

PALLAS_DECL bool region::intersects(std::byte const* a, std::byte const* b) const noexcept {
  if (a >= b || empty() || b <= lo || a >= hi) return false;
  if (rank == 0) return true;
  std::int64_t const n = runs();
  if (ordered) {
    // The last run starting at or before a, then the one after it.
    std::int64_t lo_k = -1, hi_k = n;  // run_start(lo_k) <= a < run_start(hi_k)
    while (hi_k - lo_k > 1) {
      std::int64_t const mid = lo_k + (hi_k - lo_k) / 2;
      if (run_start(mid) <= a)
        lo_k = mid;
      else
        hi_k = mid;
    }
    if (lo_k >= 0 && run_start(lo_k) + run > a) return true;
    return hi_k < n && run_start(hi_k) < b;
  }
  for (std::int64_t k = 0; k < n; ++k) {
    std::byte const* s = run_start(k);
    if (s < b && s + run > a) return true;
  }
  return false;
}

PALLAS_DECL bool region::intersects(region const& other) const noexcept {
  if (empty() || other.empty() || other.hi <= lo || other.lo >= hi) return false;
  region const& few = runs() <= other.runs() ? *this : other;
  region const& many = &few == this ? other : *this;
  std::int64_t const n = few.runs();
  for (std::int64_t k = 0; k < n; ++k) {
    std::byte const* s = few.rank == 0 ? few.base : few.run_start(k);
    if (many.intersects(s, s + few.run)) return true;
  }
  return false;
}

}  // namespace pallas::detail
