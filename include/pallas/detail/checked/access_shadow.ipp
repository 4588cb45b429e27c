// SPDX-License-Identifier: Apache-2.0
#pragma once
// access_shadow's definitions, compiled once per program under separate compilation.

#include <pallas/detail/checked/access_shadow.hpp>

namespace pallas::detail {

PALLAS_DECL void access_shadow::record(std::uintptr_t a, std::uintptr_t b, bool is_write, std::uint64_t epoch, access_site const& site) {
  if (a >= b) return;
  split_at(a);
  split_at(b);
  auto stamp = [&](shadow_segment& s) {
    if (is_write) {
      s.write_epoch = epoch;
      s.write_site = site;
    } else {
      s.read_epoch = epoch;
      s.read_site = site;
    }
  };
  auto fresh = [&](std::uintptr_t hi) {
    shadow_segment s;
    s.hi = hi;
    stamp(s);
    return s;
  };
  std::uintptr_t cursor = a;
  auto it = segments_.lower_bound(a);
  while (cursor < b) {
    if (it == segments_.end() || it->first >= b) {
      segments_.emplace_hint(it, cursor, fresh(b));
      return;
    }
    if (it->first > cursor) segments_.emplace_hint(it, cursor, fresh(it->first));
    stamp(it->second);
    cursor = it->second.hi;
    ++it;
  }
}

PALLAS_DECL void access_shadow::split_at(std::uintptr_t x) {
  auto it = segments_.upper_bound(x);
  if (it == segments_.begin()) return;
  --it;
  if (it->first < x && it->second.hi > x) {
    shadow_segment right = it->second;
    it->second.hi = x;
    segments_.emplace_hint(std::next(it), x, right);
  }
}

}  // namespace pallas::detail
