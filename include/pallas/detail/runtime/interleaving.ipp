// SPDX-License-Identifier: Apache-2.0
#pragma once
// The seeded interleaving's token passing, compiled once per program under separate
// compilation (config.hpp) and inline in every translation unit otherwise.

#include <pallas/detail/runtime/interleaving.hpp>

#include <cstdio>
#include <thread>

namespace pallas::detail {

PALLAS_DECL void interleaving::reset(bool enabled, int num_cores, std::uint64_t seed) {
  on = enabled;
  given_up.store(false, std::memory_order_relaxed);
  if (!on) return;
  slots.assign(static_cast<std::size_t>(num_cores), slot{});
  rng = seed * 0x9e3779b97f4a7c15ull + 0x2545f4914f6cdd1dull;
  progress = 1;
  token.store(static_cast<int>(next() % static_cast<std::uint64_t>(num_cores)), std::memory_order_release);
}

PALLAS_DECL int interleaving::pick() noexcept {
  int count = 0;
  for (std::size_t c = 0; c < slots.size(); ++c) count += candidate(c);
  if (count == 0) return -1;
  auto k = static_cast<int>(next() % static_cast<std::uint64_t>(count));
  for (std::size_t c = 0; c < slots.size(); ++c)
    if (candidate(c) && k-- == 0) return static_cast<int>(c);
  return -1;
}

PALLAS_DECL void interleaving::wait_for(int me) noexcept {
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

}  // namespace pallas::detail
