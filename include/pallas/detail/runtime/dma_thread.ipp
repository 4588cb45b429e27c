// SPDX-License-Identifier: Apache-2.0
#pragma once
// The DMA thread's loop and its starvation rule, compiled once per program under separate
// compilation (config.hpp) and inline in every translation unit otherwise.

#include <pallas/detail/runtime/dma_thread.hpp>

#include <pallas/detail/runtime/spin_wait.hpp>
#include <pallas/error.hpp>

#include <system_error>

#if defined(__linux__)
#  include <pthread.h>
#  include <sched.h>
#endif

namespace pallas::detail {

PALLAS_DECL void dma_thread_health::note_wait(std::chrono::steady_clock::duration waited) noexcept {
  if (waited < starved_wait) return;
  auto const now = std::chrono::steady_clock::now().time_since_epoch();
  auto const last_end = std::chrono::steady_clock::duration(starved_until_.load(std::memory_order_relaxed));
  if (now < last_end) return;  // already starved: a wait that began before the window
  auto const window = next_window(std::chrono::milliseconds(window_.load(std::memory_order_relaxed)), now - last_end);
  window_.store(window.count(), std::memory_order_relaxed);
  starved_until_.store((now + window).count(), std::memory_order_relaxed);
}

PALLAS_DECL bool may_leave_sched_idle() noexcept {
#if defined(__linux__)
  static bool const allowed = [] {
    bool left = false;
    try {
      std::thread([&] {
        sched_param const param{};
        left = pthread_setschedparam(pthread_self(), SCHED_IDLE, &param) == 0 &&
               pthread_setschedparam(pthread_self(), SCHED_OTHER, &param) == 0;
      }).join();
    } catch (std::system_error const&) {  // no thread to ask with: keep normal priority
    }
    return left;
  }();
  return allowed;
#else
  return false;
#endif
}

PALLAS_DECL dma_thread::dma_thread(dma_thread_priority priority) {
  thread_ = std::jthread([this](std::stop_token stop) { serve(stop); });
#if defined(__linux__)
  // SCHED_IDLE only where a waiting core can lend the thread its priority back: a
  // preempted SCHED_IDLE thread that nobody can raise holds the core up for seconds.
  if (priority == dma_thread_priority::idle_until_lent) {
    sched_param const param{};
    idles_ = pthread_setschedparam(thread_.native_handle(), SCHED_IDLE, &param) == 0;
  }
#else
  (void)priority;
#endif
}

// No lock orders the two sides (a thread preempted at SCHED_IDLE holding it would stall
// every core that lends): a lender always sets SCHED_OTHER after raising the flag, and the
// thread lowers itself only after clearing it, when it holds no chunk and no engine's
// mutex. If the thread's SCHED_IDLE lands after a lender's SCHED_OTHER, that lender
// waited for nothing the thread held, and the next lender raises it again.
PALLAS_DECL void dma_thread::set_lent(bool lent) noexcept {
  if (lent)
    lent_.store(true, std::memory_order_seq_cst);
  else if (!lent_.exchange(false, std::memory_order_seq_cst))
    return;  // nobody lent it anything: already at SCHED_IDLE
#if defined(__linux__)
  sched_param const param{};
  pthread_setschedparam(thread_.native_handle(), lent ? SCHED_OTHER : SCHED_IDLE, &param);
#endif
}

PALLAS_DECL int dma_thread::scheduling_policy() noexcept {
#if defined(__linux__)
  int policy = 0;
  sched_param param{};
  pthread_getschedparam(thread_.native_handle(), &policy, &param);
  return policy;
#else
  return 0;
#endif
}

PALLAS_DECL dma_thread::~dma_thread() {
  thread_.request_stop();
  wake();
}

PALLAS_DECL void dma_thread::attach(int slot, int core_index, dma_engine* engine) {
  if (slot < 0 || slot >= max_engines)
    fail("pallas::kernel: the DMA thread serves at most ", max_engines, " cores, slot ", slot, " asked");
  core_of_[static_cast<std::size_t>(slot)].store(core_index, std::memory_order_relaxed);
  engines_[static_cast<std::size_t>(slot)].store(engine, std::memory_order_release);
  int count = count_.load(std::memory_order_relaxed);
  while (count < slot + 1 && !count_.compare_exchange_weak(count, slot + 1, std::memory_order_acq_rel)) {
  }
}

PALLAS_DECL bool dma_thread::any_work() const noexcept {
  int const n = count_.load(std::memory_order_acquire);
  for (int k = 0; k < n; ++k) {
    dma_engine const* e = engines_[static_cast<std::size_t>(k)].load(std::memory_order_acquire);
    if (e && e->claimable()) return true;
  }
  return false;
}

PALLAS_DECL void dma_thread::serve(std::stop_token const& stop) {
  for (;;) {
    if (stop.stop_requested()) return;
    bool worked = false;
    int const n = count_.load(std::memory_order_acquire);
    for (int k = 0; k < n; ++k) {
      dma_engine* e = engines_[static_cast<std::size_t>(k)].load(std::memory_order_acquire);
      if (e && e->claimable())
        worked |= e->serve(core_of_[static_cast<std::size_t>(k)].load(std::memory_order_relaxed));
    }
    if (worked) continue;
    if (lent_.load(std::memory_order_relaxed)) set_lent(false);  // out of work: back to SCHED_IDLE
    // Idle: spin a little (a pipeline publishes its next fetch within a step), then park.
    std::uint32_t const seen = epoch_.load(std::memory_order_seq_cst);
    auto const deadline = std::chrono::steady_clock::now() + spin_budget;
    bool found = false;
    for (int k = 1; !found; ++k) {
      cpu_relax();
      found = any_work() || epoch_.load(std::memory_order_relaxed) != seen || stop.stop_requested();
      if ((k & 63) == 0 && std::chrono::steady_clock::now() > deadline) break;
    }
    if (found) continue;
    parked_.store(true, std::memory_order_seq_cst);
    if (!any_work() && !stop.stop_requested()) epoch_.wait(seen, std::memory_order_seq_cst);
    parked_.store(false, std::memory_order_seq_cst);
  }
}

}  // namespace pallas::detail
