// The device: persistent cores, one job per core per launch, errors that stop the launch
// and reach the caller, unwinding of blocked cores, and a device that stays usable.
#include <pallas/pallas.hpp>

#include <atomic>
#include <chrono>
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
  for (int round = 0; round < 3; ++round) {
    std::mutex m;
    std::multiset<pl::index_t> cores;
    std::set<std::thread::id> threads;
    run_on<4>([&] {
      std::lock_guard lock(m);
      cores.insert(pl::axis_index<"core">());
      threads.insert(std::this_thread::get_id());
    });
    CHECK(cores == std::multiset<pl::index_t>{0, 1, 2, 3});
    CHECK(threads.size() == 4);
    CHECK(threads.count(std::this_thread::get_id()) == 1);  // the launching thread runs core 0
    CHECK(dev.num_threads() >= 4);
  }
  int const before = dev.num_threads();
  for (int k = 0; k < 50; ++k) run_on<2>([] {});
  CHECK(dev.num_threads() == before);  // launches wake cores, they do not create threads
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
