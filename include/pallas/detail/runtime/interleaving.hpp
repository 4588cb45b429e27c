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
#include <vector>

#include <pallas/config.hpp>

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

  void reset(bool enabled, int num_cores, std::uint64_t seed);

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
  int pick() noexcept;

  void pass_to(int c) noexcept { token.store(c, std::memory_order_release); }

  /// Whether the cores still take turns.
  bool active() const noexcept { return on && !given_up.load(std::memory_order_acquire); }

  /// Returns when core `me` holds the token, or when the interleaving was given up.
  void wait_for(int me) noexcept;
};

}  // namespace pallas::detail

#if PALLAS_DEFINE_RUNTIME
#  include <pallas/detail/runtime/interleaving.ipp>
#endif
