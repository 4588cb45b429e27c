// SPDX-License-Identifier: Apache-2.0
// Busy-polling a semaphore with pl::semaphore_read (issue 14): a polling loop that nothing
// can end is a pl::deadlock_error naming the loop's line, in every DMA order, on 1, 2 and 4
// cores; a polling loop that another core ends finishes with the right result; a core that
// reads one value many times and moves on is not reported.
#include <pallas/pallas.hpp>

#include <chrono>
#include <cstdint>
#include <string>

#include <catch2/catch.hpp>

#include "../support/run_on.hpp"
#include "watchdog.hpp"

namespace pl = pallas;
namespace pltpu = pallas::tpu;
using Catch::Matchers::Contains;

namespace {

using pallas_test::run_on;

template <class F>
std::string deadlock_of(F&& f) {
  try {
    f();
  } catch (pl::deadlock_error const& e) {
    return e.what();
  }
  return "no deadlock_error";
}

constexpr pltpu::dma_execution_mode all_orders[] = {pltpu::dma_execution_mode::on_wait,
                                                    pltpu::dma_execution_mode::eager,
                                                    pltpu::dma_execution_mode::random};

}  // namespace

TEST_CASE("semaphore polling: a loop on semaphore_read that nothing can end is a deadlock at its line",
          "[semaphore][deadlock][polling]") {
  pallas_test::watchdog guard("the polling deadlock reports", std::chrono::seconds(240));
  for (auto mode : all_orders) {
    pltpu::scoped_dma_schedule use({mode, 11});
    INFO("DMA order " << static_cast<int>(mode));
    int line = 0;
    SECTION("one core") {
      auto const msg = deadlock_of([&] {
        run_on<1, pltpu::SemaphoreType::REGULAR<>>([&](auto sem) {
          line = __LINE__ + 1;
          while (pl::semaphore_read(sem) == 0) {
          }
        });
      });
      CHECK_THAT(msg, Contains("core 0 polls semaphore_read (semaphore_polling_test.cpp:" + std::to_string(line) + ")"));
      CHECK_THAT(msg, Contains("in a loop, reading REGULAR semaphore #0 (scratch) as 0 again and again"));
    }
    SECTION("two cores: one polls, the other finishes without signaling") {
      auto const msg = deadlock_of([&] {
        run_on<2, pltpu::SemaphoreType::REGULAR<>>([&](auto sem) {
          if (pl::axis_index<"core">() == 1) {
            line = __LINE__ + 1;
            while (pl::semaphore_read(sem) < 2) {
            }
          }
        });
      });
      CHECK_THAT(msg, Contains("core 0 has finished its body"));
      CHECK_THAT(msg, Contains("core 1 polls semaphore_read (semaphore_polling_test.cpp:" + std::to_string(line) + ")"));
    }
    SECTION("four cores: one polls while the others wait for it") {
      auto const msg = deadlock_of([&] {
        run_on<4, pltpu::SemaphoreType::REGULAR<>, pltpu::SemaphoreType::REGULAR<>>([&](auto flag, auto done) {
          if (pl::axis_index<"core">() == 3) {
            while (pl::semaphore_read(flag) == 0) {
            }
            for (int c = 0; c < 3; ++c) pl::semaphore_signal(done, 1, c);
          } else {
            pl::semaphore_wait(done, 1);
          }
        });
      });
      CHECK_THAT(msg, Contains("core 3 polls semaphore_read"));
      CHECK_THAT(msg, Contains("core 0 waits in semaphore_wait"));
      CHECK_THAT(msg, Contains("core 2 waits in semaphore_wait"));
    }
  }
  // The device is still usable.
  int ran = 0;
  run_on<2>([&] { pltpu::run_on_first_core<"core">([&] { ++ran; }); });
  CHECK(ran == 1);
}

TEST_CASE("semaphore polling: a loop another core ends finishes, with the signaled value", "[semaphore][polling]") {
  for (auto mode : all_orders) {
    pltpu::scoped_dma_schedule use({mode, 5});
    INFO("DMA order " << static_cast<int>(mode));
    for (int round = 0; round < 3; ++round) {
      std::int32_t seen[4] = {-1, -1, -1, -1};
      run_on<4, pltpu::SemaphoreType::REGULAR<>>([&](auto flag) {
        auto const me = pl::axis_index<"core">();
        if (me == 0) {
          // Work long enough that the others poll well past the threshold first.
          auto const until = std::chrono::steady_clock::now() + std::chrono::milliseconds(round * 20);
          while (std::chrono::steady_clock::now() < until) {
          }
          for (int c = 1; c < 4; ++c) pl::semaphore_signal(flag, 7, c);
          seen[0] = 7;
        } else {
          std::int32_t v = 0;
          while ((v = pl::semaphore_read(flag)) == 0) {
          }
          seen[me] = v;
          pl::semaphore_wait(flag, v);  // leaves it at zero for the end-of-kernel check
        }
      });
      for (int c = 0; c < 4; ++c) CHECK(seen[c] == 7);
    }
  }
}

TEST_CASE("semaphore polling: reading one value many times and moving on is not a deadlock", "[semaphore][polling]") {
  for (auto mode : all_orders) {
    pltpu::scoped_dma_schedule use({mode, 9});
    std::int64_t reads[2] = {0, 0};
    run_on<2, pltpu::SemaphoreType::REGULAR<>, pltpu::SemaphoreType::REGULAR<>>([&](auto idle, auto go) {
      auto const me = pl::axis_index<"core">();
      for (int i = 0; i < 1000; ++i) reads[me] += pl::semaphore_read(idle) == 0;
      // Both then meet: core 1 waits, core 0 computes for a while before it signals.
      if (me == 0) {
        auto const until = std::chrono::steady_clock::now() + std::chrono::milliseconds(120);
        while (std::chrono::steady_clock::now() < until) {
        }
        pl::semaphore_signal(go, 1, 1);
      } else {
        pl::semaphore_wait(go, 1);
      }
    });
    CHECK(reads[0] == 1000);
    CHECK(reads[1] == 1000);
  }
}
