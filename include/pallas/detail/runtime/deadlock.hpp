// SPDX-License-Identifier: Apache-2.0
#pragma once
// Deadlock detection. A core that waits on a semaphore for long registers as blocked. When
// every core of the launch that has not finished is blocked, nothing changes for
// `deadlock_grace`, and every blocked core confirms that its semaphore is still short,
// nothing can signal any of them any more: a pallas::deadlock_error names who waits on
// which semaphore for which value, and the launch unwinds.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <utility>

#include <pallas/detail/checked/checked_access.hpp>
#include <pallas/detail/runtime/core.hpp>
#include <pallas/detail/runtime/launch.hpp>

namespace pallas::detail {

/// How long every running core must stay blocked, with nothing changing, before a
/// deadlock is confirmed.
inline constexpr std::chrono::milliseconds deadlock_grace{50};

/// The wait_who of a core that polls a semaphore with pl::semaphore_read (polling.hpp).
inline constexpr char polling_who[] = "semaphore_read";  // one object in every TU: compared by address

/// The semaphore value a core reads: `cell` is the count of a pltpu semaphore.
inline std::int32_t read_cell(void const* cell) noexcept {
  return static_cast<std::atomic<std::int32_t> const*>(cell)->load(std::memory_order_acquire);
}

/// "core 0 waits in semaphore_wait (main.cpp:12) for REGULAR semaphore #0 (scratch) to
/// reach 1, it holds 0"; only while the launch is confirmed deadlocked (nothing moves).
[[gnu::cold]] std::string describe_blocked_core(core_state& c);

/// Throws the deadlock_error naming who waits on what (every core of the launch is blocked
/// or finished, so their wait records hold still).
[[noreturn]] void report_deadlock(launch_state& launch);

/// Registers `core` as blocked on `cell` until it holds `value` (`w` remembers it).
void enter_wait(core_state& core, wait_watch& w, void const* cell, std::int32_t value, char const* who,
                place where) noexcept;

/// Unregisters; the core is about to act (take its count, move a copy, unwind).
inline void leave_wait(core_state& core, wait_watch& w) noexcept {
  if (!w.entered) return;
  core.state.store(run_state::running, std::memory_order_seq_cst);
  core.launch->generation.fetch_add(1, std::memory_order_seq_cst);
  w.entered = false;
}

/// Called by a registered core between polls; `still_short()` re-reads its semaphore.
/// Throws pallas::deadlock_error when the deadlock is confirmed.
template <class Short>
void poll_wait(core_state& core, wait_watch& w, Short&& still_short) {
  launch_state& launch = *core.launch;
  std::uint64_t const g = launch.generation.load(std::memory_order_seq_cst);
  // Confirm a suspicion of this very generation: my semaphore is short after I saw it.
  if (launch.suspect.load(std::memory_order_seq_cst) == g && still_short())
    core.acked.store(g, std::memory_order_seq_cst);
  for (int c = 0; c < launch.num_cores; ++c)
    if (launch.cores[c]->state.load(std::memory_order_seq_cst) == run_state::running) {
      w.seen = 0;
      return;
    }
  auto const now = std::chrono::steady_clock::now();
  if (g != w.seen) {
    w.seen = g;
    w.since = now;
    return;
  }
  if (now - w.since < deadlock_grace) return;
  if (launch.suspect.load(std::memory_order_seq_cst) != g) {
    launch.suspect.store(g, std::memory_order_seq_cst);
    return;  // every blocked core confirms on its next poll
  }
  for (int c = 0; c < launch.num_cores; ++c) {
    core_state& other = *launch.cores[c];
    if (other.state.load(std::memory_order_seq_cst) == run_state::blocked &&
        other.acked.load(std::memory_order_seq_cst) != g)
      return;
  }
  if (launch.generation.load(std::memory_order_seq_cst) != g) return;
  if (launch.deadlock_reported.exchange(true, std::memory_order_acq_rel)) return;
  report_deadlock(launch);
}

/// A core's registration as blocked in one semaphore wait, for the wait's duration.
class wait_registration {
 public:
  explicit wait_registration(core_state& core) noexcept : core_(core) {}
  ~wait_registration() { leave(); }
  wait_registration(wait_registration const&) = delete;
  wait_registration& operator=(wait_registration const&) = delete;

  bool entered() const noexcept { return watch_.entered; }
  void enter(void const* cell, std::int32_t value, char const* who, place where) noexcept {
    enter_wait(core_, watch_, cell, value, who, where);
  }
  void leave() noexcept { leave_wait(core_, watch_); }
  template <class Short>
  void poll(Short&& still_short) {
    poll_wait(core_, watch_, std::forward<Short>(still_short));
  }

 private:
  core_state& core_;
  wait_watch watch_;
};

}  // namespace pallas::detail

#if PALLAS_DEFINE_RUNTIME
#  include <pallas/detail/runtime/deadlock.ipp>
#endif
