// The device: persistent cores, one job per core per launch, errors that stop the launch
// and reach the caller, unwinding of blocked cores, and a device that stays usable.
#include <pallas/pallas.hpp>

#include <atomic>
#include <chrono>
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
  // A parked thread takes 10-60 us to wake; an empty core 0 takes well under 1 us, so the
  // launcher finds core 1 not started and runs it itself (at least once in 20 tries). The
  // cores must run freely: the random DMA order interleaves them one at a time on their own
  // threads (and gives up on the spin below after a second).
  pltpu::scoped_dma_schedule free_cores({pltpu::dma_execution_mode::on_wait});
  int on_launcher = 0;
  for (int k = 0; k < 20 && on_launcher == 0; ++k) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));  // longer than any idle spin: the worker parks
    std::thread::id core1;
    run_on<2>([&] {
      if (pl::axis_index<"core">() == 1) core1 = std::this_thread::get_id();
    });
    on_launcher += core1 == std::this_thread::get_id() ? 1 : 0;
  }
  CHECK(on_launcher > 0);
  // And a kernel whose cores need each other still runs each on its own thread.
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  std::set<std::thread::id> threads;
  std::mutex m;
  std::atomic<int> arrived{0};
  run_on<2>([&] {
    {
      std::lock_guard lock(m);
      threads.insert(std::this_thread::get_id());
    }
    arrived.fetch_add(1);
    while (arrived.load() < 2) std::this_thread::yield();  // core 0 cannot finish before core 1 starts
  });
  CHECK(threads.size() == 2);
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
