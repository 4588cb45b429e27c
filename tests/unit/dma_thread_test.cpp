// SPDX-License-Identifier: Apache-2.0
// The DMA thread's priority: SCHED_IDLE until a core that waits for it lends it normal
// priority, back to SCHED_IDLE once it runs out of work; normal priority throughout where
// the process may not raise a thread out of SCHED_IDLE.

#include <catch2/catch.hpp>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include <pallas/pallas.hpp>

#if defined(__linux__)
#  include <sched.h>
#  include <sys/resource.h>

namespace {

using pallas::detail::dma_thread;
using pallas::detail::dma_thread_priority;

// The kernel's rule, read independently: leaving SCHED_IDLE for nice 0 needs CAP_SYS_NICE
// or an RLIMIT_NICE of at least 20 (sched(7)).
bool may_raise_by_the_rules() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("CapEff:", 0) == 0) {
      unsigned long long const caps = std::stoull(line.substr(7), nullptr, 16);
      if (caps & (1ull << 23)) return true;  // CAP_SYS_NICE
    }
  rlimit limit{};
  return getrlimit(RLIMIT_NICE, &limit) == 0 && (limit.rlim_cur == RLIM_INFINITY || limit.rlim_cur >= 20);
}

// Polls `pred` for up to 10 s (the thread changes its own policy when it next runs).
template <class Pred>
bool eventually(Pred pred) {
  auto const deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!pred()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

}  // namespace

TEST_CASE("dma_thread: SCHED_IDLE only where the process may raise the thread again", "[dma_thread]") {
  bool const may = may_raise_by_the_rules();
  CHECK(pallas::detail::may_leave_sched_idle() == may);
  CHECK(pallas::detail::default_dma_thread_priority() ==
        (may ? dma_thread_priority::idle_until_lent : dma_thread_priority::normal));
}

TEST_CASE("dma_thread: a waiting core lends its priority until the thread runs out of work", "[dma_thread]") {
  if (!pallas::detail::may_leave_sched_idle()) {
    WARN("this process may not raise a thread out of SCHED_IDLE: only the normal-priority thread is tested");
    return;
  }
  dma_thread thread(dma_thread_priority::idle_until_lent);
  CHECK(thread.scheduling_policy() == SCHED_IDLE);
  REQUIRE(eventually([&] { return thread.parked(); }));  // past its first look for work
  thread.lend_priority();
  CHECK(thread.scheduling_policy() == SCHED_OTHER);
  thread.lend_priority();  // lending twice changes nothing
  CHECK(thread.scheduling_policy() == SCHED_OTHER);
  thread.wake();  // nothing to move: the thread gives the priority back
  CHECK(eventually([&] { return thread.scheduling_policy() == SCHED_IDLE; }));
  REQUIRE(eventually([&] { return thread.parked(); }));
  thread.lend_priority();  // and can be lent it again
  CHECK(thread.scheduling_policy() == SCHED_OTHER);
}

TEST_CASE("dma_thread: at normal priority there is nothing to lend", "[dma_thread]") {
  dma_thread thread(dma_thread_priority::normal);
  CHECK(thread.scheduling_policy() == SCHED_OTHER);
  thread.lend_priority();
  thread.wake();
  CHECK(thread.scheduling_policy() == SCHED_OTHER);
}

#endif
