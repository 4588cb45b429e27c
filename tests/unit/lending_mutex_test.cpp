// SPDX-License-Identifier: Apache-2.0
// The mutex a core shares with the DMA thread: a core that finds it taken lends the DMA
// thread normal priority before it blocks (the thread may hold it, preempted at
// SCHED_IDLE); one that finds it free lends nothing.

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <thread>

#include <pallas/pallas.hpp>

#include "../support/eventually.hpp"

#if defined(__linux__)
#  include <sched.h>
#endif

namespace {

using pallas::detail::lending_mutex;
using pallas_test::eventually;

struct counting_lender {
  std::atomic<int> lent{0};
  void lend_priority() noexcept { lent.fetch_add(1); }
};

}  // namespace

TEST_CASE("lending_mutex: a core that finds it free lends nothing", "[lending_mutex]") {
  lending_mutex m;
  counting_lender lender;
  { auto const lock = m.lock_from_core(&lender); }
  { auto const lock = m.lock_from_core(&lender); }
  CHECK(lender.lent == 0);
  { auto const lock = m.lock_from_core(static_cast<counting_lender*>(nullptr)); }  // no thread: nothing to lend
}

TEST_CASE("lending_mutex: a core that finds it taken lends before it blocks, then gets it", "[lending_mutex]") {
  lending_mutex m;
  counting_lender lender;
  std::atomic<bool> got{false};
  auto held = m.lock_from_thread();
  std::jthread core([&] {
    auto const lock = m.lock_from_core(&lender);
    got = true;
  });
  REQUIRE(eventually([&] { return lender.lent.load() == 1; }));
  CHECK_FALSE(got.load());  // it blocks while the thread holds the mutex
  held.unlock();
  core.join();
  CHECK(got.load());
  CHECK(lender.lent == 1);
}

#if defined(__linux__)
TEST_CASE("lending_mutex: blocking on a DMA thread's mutex raises the thread out of SCHED_IDLE", "[lending_mutex]") {
  using pallas::detail::dma_thread;
  if (!pallas::detail::may_leave_sched_idle()) {
    WARN("this process may not raise a thread out of SCHED_IDLE: nothing to lend");
    return;
  }
  dma_thread thread(pallas::detail::dma_thread_priority::idle_until_lent);
  REQUIRE(eventually([&] { return thread.parked(); }));
  REQUIRE(thread.scheduling_policy() == SCHED_IDLE);
  lending_mutex m;
  auto held = m.lock_from_thread();  // as the DMA thread, preempted inside serve()
  std::jthread core([&] { auto const lock = m.lock_from_core(&thread); });
  CHECK(eventually([&] { return thread.scheduling_policy() == SCHED_OTHER; }));
  held.unlock();
}
#endif
