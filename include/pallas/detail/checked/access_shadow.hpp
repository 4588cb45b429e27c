// SPDX-License-Identifier: Apache-2.0
#pragma once
// One core's shadow of the shared memory it touched during a launch, for the race
// detector: byte intervals, each with the epoch (the core's own clock entry) and the site
// of the core's last write and last read of those bytes. Only the latest epoch matters:
// epochs grow, so if another core is ordered after the latest access it is ordered after
// every earlier one. Intervals split where accesses begin and end, so bytes are exact.

#include <cstdint>
#include <iterator>
#include <map>

#include <pallas/detail/checked/checked_access.hpp>

namespace pallas::detail {

/// Where an access came from: what did it ("sync_copy", "async copy", ...) and the line.
struct access_site {
  char const* what = "an access";
  place where;
};

/// What one core last did to an interval of bytes.
struct shadow_segment {
  std::uintptr_t hi = 0;            ///< the interval is [key, hi)
  std::uint64_t write_epoch = 0;    ///< 0: never written by this core
  std::uint64_t read_epoch = 0;     ///< 0: never read by this core
  access_site write_site, read_site;
};

class access_shadow {
 public:
  void clear() { segments_.clear(); }
  bool empty() const noexcept { return segments_.empty(); }

  /// Calls f(lo, segment) for every segment overlapping [a, b), in address order, until f
  /// returns true (found). Returns whether it did.
  template <class F>
  bool any_overlapping(std::uintptr_t a, std::uintptr_t b, F&& f) const {
    if (a >= b || segments_.empty()) return false;
    auto it = segments_.upper_bound(a);
    if (it != segments_.begin() && std::prev(it)->second.hi > a) --it;
    for (; it != segments_.end() && it->first < b; ++it)
      if (f(it->first, it->second)) return true;
    return false;
  }

  /// Stamps [a, b) with this core's access at `epoch`.
  void record(std::uintptr_t a, std::uintptr_t b, bool is_write, std::uint64_t epoch, access_site const& site);

 private:
  /// Makes `x` a segment boundary (if a segment straddles it).
  void split_at(std::uintptr_t x);

  std::map<std::uintptr_t, shadow_segment> segments_;
};

}  // namespace pallas::detail

#if PALLAS_DEFINE_RUNTIME
#  include <pallas/detail/checked/access_shadow.ipp>
#endif
