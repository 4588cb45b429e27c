// The device: persistent cores, one job per core per launch, errors that stop the launch
// and reach the caller, unwinding of blocked cores, and a device that stays usable.
#include <pallas/pallas.hpp>

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "../support/run_on.hpp"

namespace pl = pallas;
namespace pltpu = pallas::tpu;
using Catch::Matchers::Contains;

namespace {

using pallas_test::run_on;

// Keeps one thread inside a SIGUSR1 handler from construction to destruction, or for 10 s
// at most (so that a launch that waits for it fails instead of hanging): it can run nothing
// else, as if the scheduler had not woken it yet. Lock-free atomics only (signal-safe).
std::atomic<bool> thread_held{false};
std::atomic<bool> thread_released{false};

extern "C" void hold_this_thread(int) {
  thread_held.store(true);
  auto const deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!thread_released.load() && std::chrono::steady_clock::now() < deadline) sched_yield();
}

// Waits until thread `tid` of this process sleeps in the kernel (state S in its stat).
void wait_until_asleep(pid_t tid) {
  auto const path = "/proc/self/task/" + std::to_string(tid) + "/stat";
  for (int k = 0; k < 10000; ++k) {  // 10 s
    std::ifstream stat(path);
    std::string line;
    std::getline(stat, line);
    auto const end_of_name = line.rfind(')');  // the state follows the name, which may hold spaces
    if (end_of_name != std::string::npos && line.compare(end_of_name, 4, ") S ") == 0) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  FAIL("thread " << tid << " never slept");
}

class held_thread {
 public:
  explicit held_thread(pthread_t thread) {
    struct sigaction action {};
    action.sa_handler = hold_this_thread;
    sigemptyset(&action.sa_mask);
    sigaction(SIGUSR1, &action, &previous_);
    thread_held = false;
    thread_released = false;
    auto const deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    bool const sent = pthread_kill(thread, SIGUSR1) == 0;
    while (sent && !thread_held.load() && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
    if (!thread_held.load()) {
      sigaction(SIGUSR1, &previous_, nullptr);
      FAIL("the thread did not enter the SIGUSR1 handler");
    }
  }
  ~held_thread() {
    thread_released = true;
    sigaction(SIGUSR1, &previous_, nullptr);  // the signal was delivered: its handler is running
  }
  held_thread(held_thread const&) = delete;
  held_thread& operator=(held_thread const&) = delete;

 private:
  struct sigaction previous_ {};
};

}  // namespace

TEST_CASE("device: a launch runs the body once on every core, on persistent threads", "[device]") {
  auto& dev = pl::detail::device::instance();
  // Core 0 runs on the launching thread; core c >= 1 on its own persistent thread, or on the
  // launching thread after core 0 when that thread was parked and has not started it yet.
  std::map<pl::index_t, std::set<std::thread::id>> workers;  // per core, the threads other than the launcher
  for (int round = 0; round < 3; ++round) {
    std::mutex m;
    std::multiset<pl::index_t> cores;
    std::map<pl::index_t, std::thread::id> ran_on;
    run_on<4>([&] {
      std::lock_guard lock(m);
      cores.insert(pl::axis_index<"core">());
      ran_on[pl::axis_index<"core">()] = std::this_thread::get_id();
    });
    CHECK(cores == std::multiset<pl::index_t>{0, 1, 2, 3});
    CHECK(ran_on[0] == std::this_thread::get_id());  // the launching thread runs core 0
    for (auto const& [core, thread] : ran_on)
      if (thread != std::this_thread::get_id()) workers[core].insert(thread);
    CHECK(dev.num_threads() >= 4);
  }
  std::set<std::thread::id> distinct;
  for (auto const& [core, threads] : workers) {
    CHECK(core != 0);
    CHECK(threads.size() == 1);  // always the same thread: persistent
    distinct.insert(threads.begin(), threads.end());
  }
  CHECK(distinct.size() == workers.size());  // one thread per core
  int const before = dev.num_threads();
  for (int k = 0; k < 50; ++k) run_on<2>([] {});
  CHECK(dev.num_threads() == before);  // launches wake cores, they do not create threads
}

TEST_CASE("device: after an idle gap the launching thread runs a core whose parked thread has not started it",
          "[device]") {
  // Whether a woken thread starts before the launcher finishes core 0 is up to the scheduler
  // (10-60 us quiet; at once under load, where late workers ask for short slices). So the
  // test holds core 1's thread in a signal handler while it is parked: the launcher must
  // then run core 1 itself, and the held thread, once released, must not run it again.
  // The cores must run freely: the random DMA order interleaves them on their own threads.
  pltpu::scoped_dma_schedule free_cores({pltpu::dma_execution_mode::on_wait});
  // A kernel whose cores need each other runs each on its own thread (core 0 cannot finish
  // before core 1 starts, so the launcher cannot take core 1): that finds core 1's thread.
  std::atomic<int> core1_runs{0};
  pid_t worker_tid = 0;
  auto const meet = [&](pthread_t& core1) {
    std::atomic<int> arrived{0};
    run_on<2>([&] {
      if (pl::axis_index<"core">() == 1) {
        core1 = pthread_self();
        worker_tid = gettid();
        core1_runs.fetch_add(1);
      }
      arrived.fetch_add(1);
      while (arrived.load() < 2) std::this_thread::yield();
    });
  };
  pthread_t worker{};
  meet(worker);
  REQUIRE(pthread_equal(worker, pthread_self()) == 0);
  wait_until_asleep(worker_tid);  // parked on its futex, after at most 200 us of spinning
  pthread_t ran_core1{};
  {
    held_thread hold(worker);
    run_on<2>([&] {
      if (pl::axis_index<"core">() == 1) {
        ran_core1 = pthread_self();
        core1_runs.fetch_add(1);
      }
    });
  }
  CHECK(pthread_equal(ran_core1, pthread_self()) != 0);  // the launcher ran core 1
  // The released thread finds that launch's core claimed, skips it, and serves the next.
  pthread_t again{};
  meet(again);
  CHECK(pthread_equal(again, worker) != 0);
  CHECK(core1_runs.load() == 3);  // core 1 ran once per launch
}

TEST_CASE("device: the first error of a core reaches the caller, names the core, and the device stays usable",
          "[device]") {
  SECTION("a pallas::error names its core") {
    try {
      run_on<2>([] {
        if (pl::axis_index<"core">() == 1) pl::detail::fail("boom");
      });
      FAIL("no error");
    } catch (pl::error const& e) {
      CHECK(std::string(e.what()) == "boom (core 1)");
    }
  }
  SECTION("several cores fail: exactly one error comes back") {
    std::atomic<int> failed{0};
    CHECK_THROWS_WITH(run_on<4>([&] {
                        failed.fetch_add(1);
                        throw std::runtime_error("every core fails");
                      }),
                      "every core fails");
    CHECK(failed.load() == 4);
  }
  std::atomic<int> ran{0};
  run_on<4>([&] { ran.fetch_add(1); });
  CHECK(ran.load() == 4);
}

TEST_CASE("device: a failing core unwinds cores blocked in waits", "[device]") {
  auto const t0 = std::chrono::steady_clock::now();
  // Cores 0-2 wait for a signal that only core 3 would send after it failed.
  auto launch = [] {
    run_on<4, pltpu::SemaphoreType::REGULAR<>>([](auto sem) {
      if (pl::axis_index<"core">() == 3) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        throw std::runtime_error("core 3 failed");
      }
      pl::semaphore_wait(sem, 1);
    });
  };
  CHECK_THROWS_WITH(launch(), "core 3 failed");
  CHECK_NOTHROW((run_on<2, pltpu::SemaphoreType::REGULAR<>>([](auto sem) { pl::semaphore_wait(sem, 0); })));
  double const took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK(took < 5.0);
}

TEST_CASE("device: kernels cannot be launched from inside a kernel", "[device]") {
  CHECK_THROWS_WITH(run_on<1>([] { run_on<1>([] {}); }),
                    Contains("pallas::kernel: a kernel cannot be launched from inside a kernel (this body runs on "
                             "core 0 of launch #"));
}

TEST_CASE("device: launches of 1, 2 and 4 cores alternate freely", "[device]") {
  std::atomic<int> total{0};
  for (int k = 0; k < 30; ++k) {
    if (k % 3 == 0) run_on<1>([&] { total.fetch_add(1); });
    if (k % 3 == 1) run_on<2>([&] { total.fetch_add(1); });
    if (k % 3 == 2) run_on<4>([&] { total.fetch_add(1); });
  }
  CHECK(total.load() == 10 * (1 + 2 + 4));
}
