// SPDX-License-Identifier: Apache-2.0
#pragma once
// Waiting for an atomic to change: spin briefly (a handoff costs ~0.15 us), then park on
// the futex (a wake costs 10-60 us). Spinning is skipped when there are more runnable
// threads than CPUs, since the thread being waited for may then have no CPU.

#include <atomic>
#include <chrono>
#include <thread>

#include <pallas/config.hpp>

#if defined(__x86_64__) || defined(__i386__)
#  include <emmintrin.h>  // _mm_pause
#endif

namespace pallas::detail {

inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

/// How long a waiter spins before parking.
inline constexpr std::chrono::microseconds spin_budget{50};

/// How long an idle core thread spins for the next launch before parking. Longer than
/// spin_budget: a launcher that waited for its workers on the futex wakes 30-60 us after
/// they finished, so workers that parked after 50 us made every back-to-back 2-core launch
/// wake them again (66 us a launch against 7.7 us with this budget, measured here).
inline constexpr std::chrono::microseconds idle_core_spin_budget{200};

/// The processes of this program that share the machine's CPUs: the ranks of an MPI job on
/// this node (Open MPI's and MPICH's launchers say how many), else 1.
PALLAS_DECL unsigned processes_on_this_machine() noexcept;

/// Whether `threads` busy threads in every such process fit on this machine's CPUs.
PALLAS_DECL bool spinning_pays(int threads) noexcept;

/// Whether a CPU is left over beyond `threads` busy threads in every such process (room
/// for a DMA thread: 4 MPI ranks of one core each on 2 CPUs have none).
inline bool cpu_to_spare(int threads) noexcept { return spinning_pays(threads + 1); }

/// Returns once `value != old`; spins first when `spin` is true.
template <class T>
T wait_for_change(std::atomic<T> const& value, T old, bool spin) noexcept {
  T now = value.load(std::memory_order_acquire);
  if (now != old) return now;
  if (spin) {
    auto const deadline = std::chrono::steady_clock::now() + spin_budget;
    for (int k = 1;; ++k) {
      cpu_relax();
      now = value.load(std::memory_order_acquire);
      if (now != old) return now;
      if ((k & 63) == 0) {
        if (std::chrono::steady_clock::now() > deadline) break;
        std::this_thread::yield();  // the thread we wait for may share this CPU (see core_set)
      }
    }
  }
  for (;;) {
    value.wait(old, std::memory_order_acquire);
    now = value.load(std::memory_order_acquire);
    if (now != old) return now;
  }
}

}  // namespace pallas::detail

#if PALLAS_DEFINE_RUNTIME
#  include <pallas/detail/runtime/spin_wait.ipp>
#endif
