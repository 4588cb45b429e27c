// SPDX-License-Identifier: Apache-2.0
// The DMA thread's priority: SCHED_IDLE until a core that waits for it lends it normal
// priority, back to SCHED_IDLE once it runs out of work; normal priority throughout where
// the process may not raise a thread out of SCHED_IDLE.

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <pallas/pallas.hpp>

#include "../support/eventually.hpp"

#if defined(__linux__)
#  include <sched.h>
#  include <sys/resource.h>

namespace {

using pallas::detail::dma_thread;
using pallas::detail::dma_thread_priority;
using pallas_test::eventually;

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

// The threads of this process at SCHED_IDLE (/proc/self/task/<tid>/stat, field 41): the
// device's parked DMA threads too, when earlier tests launched kernels in this process.
std::set<pid_t> idle_tasks() {
  std::set<pid_t> found;
  for (auto const& task : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream stat(task.path() / "stat");
    std::string line;
    std::getline(stat, line);
    std::istringstream fields(line.substr(line.rfind(')') + 2));  // after the command name
    std::string field;
    for (int k = 3; k <= 41 && fields >> field; ++k) {
    }
    if (field == std::to_string(SCHED_IDLE)) found.insert(static_cast<pid_t>(std::stol(task.path().filename().string())));
  }
  return found;
}

// The one SCHED_IDLE thread in `now` and not in `before`, or -1.
pid_t the_new_idle_task(std::set<pid_t> const& before, std::set<pid_t> const& now) {
  std::vector<pid_t> added;
  std::set_difference(now.begin(), now.end(), before.begin(), before.end(), std::back_inserter(added));
  return added.size() == 1 ? added.front() : -1;
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

// The thread's own step back to SCHED_IDLE can land after a core's SCHED_OTHER (no lock
// orders them: a thread preempted holding one would stall the cores). The next lend must
// raise it anyway, whatever the thread's flag says.
TEST_CASE("dma_thread: a lend raises the thread even when it says it was lent already", "[dma_thread]") {
  if (!pallas::detail::may_leave_sched_idle()) {
    WARN("this process may not raise a thread out of SCHED_IDLE: only the normal-priority thread is tested");
    return;
  }
  std::set<pid_t> const idle_before = idle_tasks();
  dma_thread thread(dma_thread_priority::idle_until_lent);
  REQUIRE(eventually([&] { return thread.parked(); }));
  pid_t const tid = the_new_idle_task(idle_before, idle_tasks());
  REQUIRE(tid > 0);
  // The kernel's policy of the thread (pthread_getschedparam would give glibc's copy).
  thread.lend_priority();
  REQUIRE(sched_getscheduler(tid) == SCHED_OTHER);
  sched_param const param{};
  REQUIRE(sched_setscheduler(tid, SCHED_IDLE, &param) == 0);  // the thread's late step down
  REQUIRE(sched_getscheduler(tid) == SCHED_IDLE);
  thread.lend_priority();
  CHECK(sched_getscheduler(tid) == SCHED_OTHER);
}

TEST_CASE("dma_thread: at normal priority there is nothing to lend", "[dma_thread]") {
  dma_thread thread(dma_thread_priority::normal);
  CHECK(thread.scheduling_policy() == SCHED_OTHER);
  thread.lend_priority();
  thread.wake();
  CHECK(thread.scheduling_policy() == SCHED_OTHER);
}

#endif
