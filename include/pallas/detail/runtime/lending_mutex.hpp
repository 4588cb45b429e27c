// SPDX-License-Identifier: Apache-2.0
#pragma once
// The mutex a core shares with the DMA thread (a DMA engine's published copies). The DMA
// thread idles at SCHED_IDLE, and on a loaded machine one preempted while holding the mutex
// got its next time slice 1.3-1.4 s later: a core that then blocked on the mutex waited as
// long (1 launch in ~1000 of benchmarks/oversubscribed.cpp's). A core that finds the mutex
// taken therefore lends the thread normal priority before it blocks, as it does before it
// sleeps on chunks the thread claimed (dma_thread.hpp). The thread holds it only to scan a
// few published copies, so a core first retries for a moment: lending at once raised the
// thread ~190 times a launch on a quiet machine (a system call each, and the thread then
// runs at normal priority until it runs out of work). The two sides lock through
// different members, so a core cannot take the mutex without that rule.

#include <mutex>

#include <pallas/detail/runtime/spin_wait.hpp>

namespace pallas::detail {

class lending_mutex {
 public:
  /// How often a core tries the mutex before it lends (a few microseconds).
  static constexpr int tries_before_lending = 64;

  /// A core's lock. If the mutex stays taken, `thread` (the DMA thread that may hold it,
  /// or null) is lent normal priority before the core blocks. Thread: anything with
  /// lend_priority().
  template <class Thread>
  [[nodiscard]] std::unique_lock<std::mutex> lock_from_core(Thread* thread) {
    std::unique_lock lock(mutex_, std::try_to_lock);
    for (int k = 1; !lock.owns_lock() && k < tries_before_lending; ++k) {
      cpu_relax();
      (void)lock.try_lock();
    }
    if (!lock.owns_lock()) {
      if (thread) thread->lend_priority();
      lock.lock();
    }
    return lock;
  }

  /// The DMA thread's lock (it has nobody to lend to).
  [[nodiscard]] std::unique_lock<std::mutex> lock_from_thread() { return std::unique_lock(mutex_); }

 private:
  std::mutex mutex_;
};

}  // namespace pallas::detail
