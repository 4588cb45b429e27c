// SPDX-License-Identifier: Apache-2.0
#pragma once
// A vector clock over the cores of one launch: entry c counts core c's synchronisation
// epochs. Core c's own entry is the epoch its accesses are stamped with; it ticks whenever
// the core releases (signals a semaphore, starts a copy), so that what the core does next
// is not covered by what it released. Event a happens before b when a's epoch on its core
// is <= b's clock entry for that core.

#include <cstddef>
#include <cstdint>
#include <vector>

#include <pallas/config.hpp>

namespace pallas::detail {

class vector_clock {
 public:
  vector_clock() = default;
  explicit vector_clock(int cores) : t_(static_cast<std::size_t>(cores), 0) {}

  /// All zero: nothing of any core is known.
  void reset(int cores);

  std::uint64_t operator[](int core) const noexcept { return t_[static_cast<std::size_t>(core)]; }
  void set(int core, std::uint64_t epoch) noexcept { t_[static_cast<std::size_t>(core)] = epoch; }
  void tick(int core) noexcept { ++t_[static_cast<std::size_t>(core)]; }
  int size() const noexcept { return static_cast<int>(t_.size()); }

  /// Entry-wise maximum: afterwards this clock knows everything `other` knew.
  void join(vector_clock const& other) noexcept;

 private:
  std::vector<std::uint64_t> t_;
};

}  // namespace pallas::detail

#if PALLAS_DEFINE_RUNTIME
#  include <pallas/detail/checked/vector_clock.ipp>
#endif
