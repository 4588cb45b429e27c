// SPDX-License-Identifier: Apache-2.0
#pragma once
// The random DMA order's deterministic interleaving: the cores of a launch run one at a time.
// A token passes among them at their synchronization points (semaphore operations, copy
// starts and waits, barriers), to a core the launch's seeded generator picks, so that a seed
// fixes the interleaving, the copy completion order and whatever checked mode reports, run
// after run. A core whose wait cannot be satisfied passes the token on; when no core can run
// any more, that is a deadlock, reported at once (pallas::deadlock_error).
//
// Only the token holder reads or writes the shared fields below; the token's release and
// acquire order them. The operations on a core are in random_order.hpp.
//
// A core that computes, or loops on something that is not a semaphore (a std::atomic of
// its own), for longer than `patience` without reaching a synchronization point would keep
// the others waiting for ever: the interleaving is then given up for the rest of the
// launch (the cores run freely, as in the other orders) with a warning, instead of a hang.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <thread>
#include <vector>

namespace pallas::detail {

/// How many launches in this process gave up their interleaving (tests check that a kernel
/// that only synchronizes through semaphores and copies never does).
inline std::atomic<std::uint64_t>& interleavings_given_up() {
  static std::atomic<std::uint64_t> count{0};
  return count;
}

struct interleaving {
  enum class state : std::uint8_t { runnable, blocked, finished };
  struct slot {
    state now = state::runnable;
    std::uint64_t blocked_at = 0;  ///< `progress` when it blocked
  };

  static constexpr std::chrono::milliseconds patience{1000};

  bool on = false;                    ///< set before the launch's cores start
  std::atomic<bool> given_up{false};  ///< after a core kept the token longer than `patience`
  std::atomic<int> token{-1};
  std::uint64_t rng = 0;
  std::uint64_t progress = 1;  ///< bumped at every point where a core may have let another go
  std::vector<slot> slots;

  void reset(bool enabled, int num_cores, std::uint64_t seed) {
    on = enabled;
    given_up.store(false, std::memory_order_relaxed);
    if (!on) return;
    slots.assign(static_cast<std::size_t>(num_cores), slot{});
    rng = seed * 0x9e3779b97f4a7c15ull + 0x2545f4914f6cdd1dull;
    progress = 1;
    token.store(static_cast<int>(next() % static_cast<std::uint64_t>(num_cores)), std::memory_order_release);
  }

  std::uint64_t next() noexcept {  // splitmix64
    std::uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }

  /// A core that may run: runnable, or blocked while something happened since.
  bool candidate(std::size_t c) const noexcept {
    return slots[c].now == state::runnable || (slots[c].now == state::blocked && slots[c].blocked_at < progress);
  }

  /// The seeded pick among the candidates, or -1.
  int pick() noexcept {
    int count = 0;
    for (std::size_t c = 0; c < slots.size(); ++c) count += candidate(c);
    if (count == 0) return -1;
    auto k = static_cast<int>(next() % static_cast<std::uint64_t>(count));
    for (std::size_t c = 0; c < slots.size(); ++c)
      if (candidate(c) && k-- == 0) return static_cast<int>(c);
    return -1;
  }

  void pass_to(int c) noexcept { token.store(c, std::memory_order_release); }

  /// Whether the cores still take turns.
  bool active() const noexcept { return on && !given_up.load(std::memory_order_acquire); }

  /// Returns when core `me` holds the token, or when the interleaving was given up.
  void wait_for(int me) noexcept {
    auto const deadline = std::chrono::steady_clock::now() + patience;
    for (int t = token.load(std::memory_order_acquire); t != me; t = token.load(std::memory_order_acquire)) {
      if (given_up.load(std::memory_order_acquire)) return;
      if (std::chrono::steady_clock::now() > deadline) {
        if (!given_up.exchange(true, std::memory_order_acq_rel)) {
          interleavings_given_up().fetch_add(1, std::memory_order_relaxed);
          std::fprintf(stderr,  // NOLINT: a warning, once per launch
                       "pallas: the random DMA order gave up its seeded interleaving for this launch: core %d "
                       "ran %lld ms without reaching a semaphore or copy operation (does it loop on something "
                       "else?); the cores now run freely\n",
                       t, static_cast<long long>(patience.count()));
        }
        return;
      }
      // Short sleeps rather than a futex wait: the deadline must be seen even if nobody
      // ever passes the token.
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
  }
};

}  // namespace pallas::detail
