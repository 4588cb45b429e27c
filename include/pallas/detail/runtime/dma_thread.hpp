// SPDX-License-Identifier: Apache-2.0
#pragma once
// The device's DMA thread: one persistent std::jthread that moves the chunks of copies the
// cores publish (dma_engine.hpp's thread executor) while the cores compute. It spins briefly
// when idle, then parks and is woken only when parked; on Linux it runs at SCHED_IDLE, so it
// takes only CPU time no core wants (a busy machine then leaves the copies to the cores,
// which help with their own copies anyway), and a core that must wait for chunks the thread
// claimed lends it normal priority until it runs out of work (priority inheritance: on a
// loaded machine a preempted SCHED_IDLE thread got its next time slice 1.3-3.1 s later,
// and the waiting core with it; a core that finds the engine's mutex taken lends it too,
// lending_mutex.hpp). Where the process may not raise a thread out of SCHED_IDLE
// (no CAP_SYS_NICE, RLIMIT_NICE below 20) the thread keeps normal priority instead.

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <stop_token>
#include <thread>

#include <pallas/config.hpp>
#include <pallas/detail/runtime/dma_engine.hpp>

namespace pallas::detail {

/// The automatic executor's measured rule against a starved DMA thread: at SCHED_IDLE the
/// thread gets no CPU while every CPU is busy with other work, and a core that waits for a
/// chunk the thread claimed waits until it does (a 1-core pipeline ran 14x slower on a
/// fully loaded machine). A core that waited longer than `starved_wait` for the thread's
/// chunks marks it starved: from then on, automatic launches, and the copies that running
/// launches start, stay on the cores for a window (next_window): 100 ms, 4x longer (up to
/// 1.28 s) each time the thread starves again within 200 ms of the last window's end (a
/// busy machine), 100 ms again after a starvation that came later (a passing blip: on a
/// quiet 2-CPU VM one came every 0.5-1 s, and the fixed 1 s window this replaces left a
/// 1-core pipeline on the core most of the time: 7.7-10.1 ms a launch, 7.8-8.0 ms now; on
/// the loaded machine of benchmarks/oversubscribed.cpp both take 3-5 ms).
struct dma_thread_health {
  static constexpr std::chrono::microseconds starved_wait{500};
  static constexpr std::chrono::milliseconds first_window{100};
  static constexpr std::chrono::milliseconds longest_window{1280};
  static constexpr std::chrono::milliseconds soon_after{200};

  /// The window after a starvation that came `since_end` after the end of the last
  /// window, which was `last` long.
  static constexpr std::chrono::milliseconds next_window(std::chrono::milliseconds last,
                                                         std::chrono::steady_clock::duration since_end) noexcept {
    if (since_end >= soon_after || last.count() == 0) return first_window;
    return std::min(last * 4, longest_window);
  }

  static void note_wait(std::chrono::steady_clock::duration waited) noexcept;
  static bool starved() noexcept {
    return std::chrono::steady_clock::now().time_since_epoch().count() <
           starved_until_.load(std::memory_order_relaxed);
  }

 private:
  inline static constinit std::atomic<std::chrono::steady_clock::rep> starved_until_{0};
  inline static constinit std::atomic<std::chrono::milliseconds::rep> window_{0};  ///< the last window's length
};

/// Whether this process may move a thread from SCHED_IDLE back to normal priority (asked of
/// the kernel once, on a short-lived thread).
PALLAS_DECL bool may_leave_sched_idle() noexcept;

/// How the DMA thread is scheduled: at SCHED_IDLE until a waiting core lends it normal
/// priority, or at normal priority throughout (where priority cannot be lent).
enum class dma_thread_priority { idle_until_lent, normal };

inline dma_thread_priority default_dma_thread_priority() noexcept {
  return may_leave_sched_idle() ? dma_thread_priority::idle_until_lent : dma_thread_priority::normal;
}

class dma_thread {
 public:
  static constexpr int max_engines = 256;

  explicit dma_thread(dma_thread_priority priority = default_dma_thread_priority());
  ~dma_thread();
  dma_thread(dma_thread const&) = delete;
  dma_thread& operator=(dma_thread const&) = delete;

  /// Serves `engine` (core `core_index`'s) in `slot` from now on. The device gives every
  /// core of its core sets its own slot, since several sets may launch at once.
  void attach(int slot, int core_index, dma_engine* engine);

  /// There is new work: wakes the thread if it is parked (a futex wake costs 10-60 us here,
  /// so a running thread is not woken).
  void wake() noexcept {
    epoch_.fetch_add(1, std::memory_order_seq_cst);
    if (parked_.load(std::memory_order_seq_cst)) epoch_.notify_one();
  }

  /// A core is about to block on the thread (chunks it claimed, the engine's mutex it may
  /// hold): the thread runs at normal priority until it runs out of work (a no-op unless it
  /// idles at SCHED_IDLE). Always asks the kernel, never trusts the flag: the thread sets
  /// SCHED_IDLE on itself when out of work, and a flag read during that step would say
  /// "lent" of a thread that is, or is about to be, idle again.
  void lend_priority() noexcept {
    if (idles_) set_lent(true);
  }

  /// The thread's scheduling policy now (SCHED_IDLE or SCHED_OTHER on Linux; 0 elsewhere).
  int scheduling_policy() noexcept;
  /// Whether the thread is parked (it then holds no chunk and changes nothing until woken).
  bool parked() const noexcept { return parked_.load(std::memory_order_seq_cst); }

 private:
  bool any_work() const noexcept;
  void set_lent(bool lent) noexcept;

  void serve(std::stop_token const& stop);

  std::array<std::atomic<dma_engine*>, max_engines> engines_{};
  std::array<std::atomic<int>, max_engines> core_of_{};  ///< the core index of each slot (tracing)
  std::atomic<int> count_{0};
  std::atomic<std::uint32_t> epoch_{0};
  std::atomic<bool> parked_{false};
  bool idles_ = false;              ///< runs at SCHED_IDLE when nobody lends it priority
  std::atomic<bool> lent_{false};   ///< a core lent it normal priority (only the thread clears it)
  std::jthread thread_;  // last: it starts after the members it reads exist
};

}  // namespace pallas::detail

#if PALLAS_DEFINE_RUNTIME
#  include <pallas/detail/runtime/dma_thread.ipp>
#endif
