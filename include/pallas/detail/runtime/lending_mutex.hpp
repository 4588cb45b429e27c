// SPDX-License-Identifier: Apache-2.0
#pragma once
// The mutex a core shares with the DMA thread (a DMA engine's published copies). The DMA
// thread idles at SCHED_IDLE, and on a loaded machine one preempted while holding the mutex
// got its next time slice 1.3-1.4 s later: a core that then blocked on the mutex waited as
// long (1 launch in ~1000 of benchmarks/oversubscribed.cpp's). A core that finds the mutex
// taken therefore lends the thread normal priority before it blocks, as it does before it
// sleeps on chunks the thread claimed (dma_thread.hpp). The two sides lock through
// different members, so a core cannot take the mutex without that rule.

#include <mutex>

namespace pallas::detail {

class lending_mutex {
 public:
  /// A core's lock. If the mutex is taken, `thread` (the DMA thread that may hold it, or
  /// null) is lent normal priority first. Thread: anything with lend_priority().
  template <class Thread>
  [[nodiscard]] std::unique_lock<std::mutex> lock_from_core(Thread* thread) {
    std::unique_lock lock(mutex_, std::try_to_lock);
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
