// SPDX-License-Identifier: Apache-2.0
#pragma once
// A core thread that starts its part of a launch late asks the scheduler for short time
// slices. On a loaded machine (every CPU running another program) a parked core thread
// woke 3-4 ms after its launcher posted the launch: Linux's EEVDF scheduler (6.6 and
// later) let the busy process run out its slice first, so a 2-core launch ran its halves
// one after the other and took longer than the same work on one core
// (oversubscribed_2core_vs_1core 0.68-0.89). A short slice (sched_setattr's sched_runtime,
// honoured for normal threads since Linux 6.12, no privilege needed) gives a woken thread
// an earlier deadline, so it preempts at once: the delay fell to 0.05 ms and the ratio rose
// to 1.19-1.47. Always on, though, it made a woken thread preempt its launcher on a quiet
// machine: a 2-core launch after an idle gap took 40-110% longer.
//
// So each core thread measures how late it starts (the launcher stamps the launch) and
// keeps short slices for `window` after its last late start, then goes back to the default
// slice (one late launch a window under lasting load): 1.03-1.31 loaded, and the quiet
// launch unchanged.

#include <chrono>
#include <cstdint>

#include <pallas/config.hpp>

namespace pallas::detail {

/// When a core thread should run with short slices, from its start latencies.
class wake_slice_rule {
 public:
  static constexpr std::chrono::microseconds late{1000};  ///< a start this late is a loaded machine's
  static constexpr std::chrono::milliseconds window{1000};
  static constexpr std::chrono::microseconds short_slice{100};  ///< the scheduler's shortest

  /// A start `latency` after the launch was posted, observed at `now`: whether the thread
  /// should now run with short slices.
  constexpr bool observe(std::chrono::nanoseconds latency, std::chrono::nanoseconds now) noexcept {
    if (latency >= late) short_until_ = now + window;
    return now < short_until_;
  }

 private:
  std::chrono::nanoseconds short_until_{0};
};

/// Asks the scheduler for short slices (true) or the default slice (false) for the calling
/// thread; false when it refused or cannot (not Linux).
PALLAS_DECL bool request_short_slices(bool short_slices) noexcept;

/// The calling thread's slice request (ns; 0 when it has the default slice or the kernel
/// does not say), for tests.
PALLAS_DECL std::uint64_t requested_slice_ns() noexcept;

}  // namespace pallas::detail

#if PALLAS_DEFINE_RUNTIME
#  include <pallas/detail/runtime/wake_slice.ipp>
#endif
