// SPDX-License-Identifier: Apache-2.0
#pragma once
// The slice requests (sched_setattr), compiled once per program under separate compilation
// (config.hpp) and inline in every translation unit otherwise.

#include <pallas/detail/runtime/wake_slice.hpp>

#if defined(__linux__)
#  include <sched.h>
#  include <sys/syscall.h>
#  include <unistd.h>
#endif

namespace pallas::detail {

#if defined(__linux__) && defined(SYS_sched_setattr) && defined(SYS_sched_getattr)
/// struct sched_attr as of its first version (SCHED_ATTR_SIZE_VER0, 48 bytes); glibc does
/// not declare it.
struct sched_attr_v0 {
  std::uint32_t size = sizeof(sched_attr_v0);
  std::uint32_t sched_policy = 0;
  std::uint64_t sched_flags = 0;
  std::int32_t sched_nice = 0;
  std::uint32_t sched_priority = 0;
  std::uint64_t sched_runtime = 0;
  std::uint64_t sched_deadline = 0;
  std::uint64_t sched_period = 0;
};

PALLAS_DECL bool request_short_slices(bool short_slices) noexcept {
  sched_attr_v0 attr;
  if (syscall(SYS_sched_getattr, 0, &attr, sizeof attr, 0) != 0 || attr.sched_policy != SCHED_OTHER) return false;
  attr.size = sizeof attr;
  attr.sched_flags = 0;
  attr.sched_runtime = short_slices ? static_cast<std::uint64_t>(
                                          std::chrono::nanoseconds(wake_slice_rule::short_slice).count())
                                    : 0;  // 0: the scheduler's default slice
  return syscall(SYS_sched_setattr, 0, &attr, 0) == 0;
}

PALLAS_DECL std::uint64_t requested_slice_ns() noexcept {
  sched_attr_v0 attr;
  if (syscall(SYS_sched_getattr, 0, &attr, sizeof attr, 0) != 0) return 0;
  return attr.sched_runtime;
}
#else
PALLAS_DECL bool request_short_slices(bool) noexcept { return false; }
PALLAS_DECL std::uint64_t requested_slice_ns() noexcept { return 0; }
#endif

}  // namespace pallas::detail
