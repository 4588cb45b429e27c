// Semaphores: signal / wait / read as Pallas counts them, across cores, core_barrier,
// run_on_first_core, and the checked-mode errors: non-zero at the end, deadlocks (reported
// with who waits on what, instead of hanging), signals to unallocated semaphores.
#include <pallas/pallas.hpp>

#include <atomic>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "../support/error_of.hpp"
#include "../support/run_on.hpp"
#include "watchdog.hpp"

namespace pl = pallas;
namespace pltpu = pallas::tpu;

namespace {

using pallas_test::run_on;

using seconds = std::chrono::duration<double>;

template <class F>
double timed(F&& f) {
  auto const t0 = std::chrono::steady_clock::now();
  f();
  return seconds(std::chrono::steady_clock::now() - t0).count();
}

using pallas_test::error_of;

using Catch::Matchers::Contains;

}  // namespace

TEST_CASE("semaphore: signal adds, wait blocks until count >= value then subtracts, read reads",
          "[semaphore]") {
  std::vector<std::int32_t> seen;
  run_on<1, pltpu::SemaphoreType::REGULAR<>>([&](auto sem) {
    seen.push_back(pl::semaphore_read(sem));
    pl::semaphore_signal(sem, 3);
    seen.push_back(pl::semaphore_read(sem));
    pl::semaphore_wait(sem, 2);
    seen.push_back(pl::semaphore_read(sem));
    pl::semaphore_signal(sem);  // inc defaults to 1
    pl::semaphore_wait(sem);    // value defaults to 1
    seen.push_back(pl::semaphore_read(sem));
    pl::semaphore_wait(sem, 1);
    pl::semaphore_wait(sem, 0);  // already satisfied
    seen.push_back(pl::semaphore_read(sem));
  });
  CHECK(seen == std::vector<std::int32_t>{0, 3, 1, 1, 0});
}

TEST_CASE("semaphore: arrays hold independent semaphores, picked with .at(i)", "[semaphore]") {
  std::vector<std::int32_t> seen;
  run_on<1, pltpu::SemaphoreType::REGULAR<3>, pltpu::SemaphoreType::BARRIER<2, 2>>([&](auto sems, auto grid) {
    for (int i = 0; i < 3; ++i) pl::semaphore_signal(sems.at(i), 10 * (i + 1));
    pl::semaphore_signal(grid.at(1, 0), 7);
    for (int i = 0; i < 3; ++i) seen.push_back(pl::semaphore_read(sems.at(i)));
    seen.push_back(pl::semaphore_read(grid.at(1, 0)));
    seen.push_back(pl::semaphore_read(grid.at(0, 1)));
    for (int i = 0; i < 3; ++i) pl::semaphore_wait(sems.at(i), 10 * (i + 1));
    pl::semaphore_wait(grid.at(1, 0), 7);
  });
  CHECK(seen == std::vector<std::int32_t>{10, 20, 30, 7, 0});
}

TEST_CASE("semaphore: signaling another core's semaphore with core_index passes a token around",
          "[semaphore]") {
  // Core i waits for core i-1, appends its index, then signals core i+1: the order is a
  // property of the protocol, whatever the interleaving.
  auto ring = [](auto cores_tag) {
    constexpr int n = decltype(cores_tag)::value;
    std::vector<int> order;
    std::mutex m;
    run_on<n, pltpu::SemaphoreType::REGULAR<>>([&](auto sem) {
      auto const me = pl::axis_index<"core">();
      for (int lap = 0; lap < 3; ++lap) {
        if (me != 0 || lap != 0) pl::semaphore_wait(sem, 1);
        {
          std::lock_guard lock(m);
          order.push_back(static_cast<int>(me));
        }
        if (!(me == n - 1 && lap == 2)) pl::semaphore_signal(sem, 1, (me + 1) % n);
      }
    });
    std::vector<int> expected;
    for (int lap = 0; lap < 3; ++lap)
      for (int c = 0; c < n; ++c) expected.push_back(c);
    CHECK(order == expected);
  };
  ring(std::integral_constant<int, 2>{});
  ring(std::integral_constant<int, 4>{});
}

TEST_CASE("semaphore: core_index outside the mesh is an index_error naming it", "[semaphore]") {
  auto const msg = error_of<pl::index_error>(
      [] { run_on<2, pltpu::SemaphoreType::REGULAR<>>([](auto sem) { pl::semaphore_signal(sem, 1, 2); }); });
  CHECK_THAT(msg, Contains("core_index 2 is out of range for 2 cores"));
}

TEST_CASE("semaphore: negative increments and waits are errors", "[semaphore]") {
  CHECK_THAT(error_of([] { run_on<1, pltpu::SemaphoreType::REGULAR<>>([](auto sem) { pl::semaphore_signal(sem, -1); }); }),
             Contains("increment -1"));
  CHECK_THAT(error_of([] { run_on<1, pltpu::SemaphoreType::REGULAR<>>([](auto sem) { pl::semaphore_wait(sem, -2); }); }),
             Contains("value -2"));
}

TEST_CASE("semaphore: a semaphore not zero when the kernel ends is a leak_error naming it and its core",
          "[semaphore][checked]") {
  auto const msg = error_of<pl::leak_error>([] {
    run_on<2, pltpu::SemaphoreType::DMA<>, pltpu::SemaphoreType::REGULAR<2>>([](auto, auto sems) {
      if (pl::axis_index<"core">() == 1) pl::semaphore_signal(sems.at(1), 5, 0);  // core 1 -> core 0
    });
  });
  CHECK_THAT(msg, Contains("every semaphore must be zero when the kernel ends"));
  CHECK_THAT(msg, Contains("REGULAR semaphore #2 (element [1] of 2, scratch) on core 0 holds 5"));
  // Balanced use is fine.
  CHECK_NOTHROW((run_on<2, pltpu::SemaphoreType::REGULAR<>>([](auto sem) {
    pl::semaphore_signal(sem, 2);
    pl::semaphore_wait(sem, 2);
  })));
}

TEST_CASE("semaphore: a deadlock is reported with who waits on what, instead of hanging",
          "[semaphore][deadlock]") {
  SECTION("one core waits for a signal nobody sends") {
    // The property is "reported, not hung": the watchdog ends the run if the report never
    // comes. The time it takes (deadlock_grace, 50 ms, plus polling) depends on the load, so
    // it is only bounded generously: once at 7.8 s on a loaded machine.
    pallas_test::watchdog guard("the deadlock report", std::chrono::seconds(120));
    std::string msg;
    double const t = timed([&] {
      msg = error_of<pl::deadlock_error>(
          [] { run_on<1, pltpu::SemaphoreType::REGULAR<>>([](auto sem) { pl::semaphore_wait(sem, 2); }); });
    });
    CHECK(t < 60.0);
    CHECK_THAT(msg, Contains("pallas::deadlock"));
    CHECK_THAT(msg, Contains("core 0 waits in semaphore_wait (semaphore_test.cpp:"));
    CHECK_THAT(msg, Contains("for REGULAR semaphore #0 (scratch) to reach 2, it holds 0"));
  }
  SECTION("two cores wait for each other") {
    auto const msg = error_of<pl::deadlock_error>([] {
      run_on<2, pltpu::SemaphoreType::REGULAR<>, pltpu::SemaphoreType::REGULAR<>>([](auto a, auto b) {
        if (pl::axis_index<"core">() == 0) {
          pl::semaphore_wait(a, 1);
          pl::semaphore_signal(b, 1, 1);
        } else {
          pl::semaphore_wait(b, 1);
          pl::semaphore_signal(a, 1, 0);
        }
      });
    });
    CHECK_THAT(msg, Contains("core 0 waits in semaphore_wait"));
    CHECK_THAT(msg, Contains("for REGULAR semaphore #0 (scratch) to reach 1"));
    CHECK_THAT(msg, Contains("core 1 waits in semaphore_wait"));
    CHECK_THAT(msg, Contains("for REGULAR semaphore #1 (scratch) to reach 1"));
  }
  SECTION("a core waits for a core that has finished without signaling") {
    auto const msg = error_of<pl::deadlock_error>([] {
      run_on<4, pltpu::SemaphoreType::REGULAR<>>([](auto sem) {
        if (pl::axis_index<"core">() == 2) pl::semaphore_wait(sem, 3);
      });
    });
    CHECK_THAT(msg, Contains("core 0 has finished its body"));
    CHECK_THAT(msg, Contains("core 2 waits in semaphore_wait"));
    CHECK_THAT(msg, Contains("to reach 3, it holds 0"));
  }
  SECTION("over-waiting a core_barrier semaphore") {
    auto const msg = error_of<pl::deadlock_error>([] {
      run_on<2, pltpu::SemaphoreType::REGULAR<>>([](auto sem) {
        pltpu::core_barrier<"core">(sem);
        if (pl::axis_index<"core">() == 1) pltpu::core_barrier<"core">(sem);  // core 0 never comes
      });
    });
    CHECK_THAT(msg, Contains("core 1 waits in core_barrier"));
  }
  // The device is still usable.
  int ran = 0;
  run_on<2>([&] { pltpu::run_on_first_core<"core">([&] { ++ran; }); });
  CHECK(ran == 1);
}

TEST_CASE("semaphore: a slow signaler is not a deadlock", "[semaphore][deadlock]") {
  // Core 1 computes (sleeps) for much longer than the deadlock grace before it signals:
  // core 0 is blocked, but core 1 is running, so nothing is reported.
  CHECK_NOTHROW((run_on<2, pltpu::SemaphoreType::REGULAR<>>([](auto sem) {
    if (pl::axis_index<"core">() == 0) {
      pl::semaphore_wait(sem, 1);
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      pl::semaphore_signal(sem, 1, 0);
    }
  })));
  // Both cores block for a while in turn, each waking the other: no deadlock either.
  CHECK_NOTHROW((run_on<2, pltpu::SemaphoreType::REGULAR<>>([](auto sem) {
    auto const me = pl::axis_index<"core">();
    for (int round = 0; round < 3; ++round) {
      if ((round + me) % 2 == 0) {
        pl::semaphore_wait(sem, 1);
      } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(80));
        pl::semaphore_signal(sem, 1, 1 - me);
      }
    }
  })));
}

TEST_CASE("semaphore: a failing core unwinds the cores blocked on it", "[semaphore][device]") {
  std::string msg;
  double const t = timed([&] {
    msg = error_of<std::exception>([] {
      run_on<2, pltpu::SemaphoreType::REGULAR<>>([](auto sem) {
        if (pl::axis_index<"core">() == 0) pl::semaphore_wait(sem, 1);  // core 1 would signal
        else
          throw std::runtime_error("core 1 fails");
      });
    });
  });
  CHECK(t < 5.0);
  CHECK(msg == "core 1 fails");
}

TEST_CASE("semaphore: a signal to a semaphore the other core never allocates is a leak at the kernel's end",
          "[semaphore][checked]") {
  // Core 0 signals the run_scoped semaphore on core 1, which never enters that run_scoped:
  // the signal waits for an allocation that never comes.
  auto const msg = error_of<pl::leak_error>([] {
    run_on<2, pltpu::SemaphoreType::REGULAR<>>([](auto) {
      if (pl::axis_index<"core">() == 0)
        pl::run_scoped([](auto s) { pl::semaphore_signal(s, 1, 1); }, pltpu::SemaphoreType::REGULAR<>{});
    });
  });
  CHECK_THAT(msg, Contains("pallas::kernel: every signal must reach its semaphore, but core 0 signaled REGULAR "
                           "semaphore #1 (run_scoped) on core 1 (+1), which that core never allocated"));
}

TEST_CASE("semaphore: core_barrier lets no core through before every core arrived", "[semaphore][barrier]") {
  auto check = [](auto cores_tag) {
    constexpr int n = decltype(cores_tag)::value;
    std::atomic<int> arrived{0};
    std::atomic<int> early{0};
    run_on<n, pltpu::SemaphoreType::REGULAR<>>([&](auto sem) {
      for (int round = 1; round <= 5; ++round) {
        if (pl::axis_index<"core">() == round % n) std::this_thread::sleep_for(std::chrono::milliseconds(2));
        arrived.fetch_add(1);
        pltpu::core_barrier<"core">(sem);
        if (arrived.load() < round * n) early.fetch_add(1);
      }
    });
    CHECK(arrived.load() == 5 * n);
    CHECK(early.load() == 0);
  };
  check(std::integral_constant<int, 1>{});
  check(std::integral_constant<int, 2>{});
  check(std::integral_constant<int, 4>{});
}

TEST_CASE("semaphore: core_barrier works with a BARRIER semaphore and an array element", "[semaphore][barrier]") {
  std::atomic<int> passes{0};
  run_on<2, pltpu::SemaphoreType::BARRIER<>, pltpu::SemaphoreType::REGULAR<2>>([&](auto b, auto r) {
    pltpu::core_barrier<"core">(b);
    pltpu::core_barrier<"core">(r.at(1));
    passes.fetch_add(1);
  });
  CHECK(passes.load() == 2);
}

TEST_CASE("semaphore: run_on_first_core runs f on core 0 only", "[semaphore]") {
  std::vector<int> cores;
  std::mutex m;
  run_on<4>([&] {
    pltpu::run_on_first_core<"core">([&] {
      std::lock_guard lock(m);
      cores.push_back(static_cast<int>(pl::axis_index<"core">()));
    });
  });
  CHECK(cores == std::vector<int>{0});
  CHECK_THAT(error_of([] { run_on<1>([] { pltpu::run_on_first_core<"x">([] {}); }); }),
             Contains("the mesh has no axis named 'x'"));
}
