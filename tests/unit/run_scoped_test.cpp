// pl::run_scoped: per-core buffers and semaphores for the extent of f, stack-like and
// nestable, released on return and on throw; f's result returned; checked-mode errors for
// what outlives the scope.
#include <pallas/pallas.hpp>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "../support/error_of.hpp"
#include "../support/run_on.hpp"

namespace pl = pallas;
namespace pltpu = pallas::tpu;
using Catch::Matchers::Contains;

namespace {

using pallas_test::run_on;

using pallas_test::error_of;

}  // namespace

TEST_CASE("run_scoped: returns f's result, buffers and semaphores work inside", "[run_scoped]") {
  pl::Array<float, 8, 128> x;
  for (int i = 0; i < 8 * 128; ++i) x.data()[i] = static_cast<float>(i % 17);
  float expected = 0;
  for (int i = 0; i < 8 * 128; ++i) expected += x.data()[i];
  float total = -1;
  bool ran_void = false;
  pl::kernel(pl::mesh<pltpu::TensorCoreMesh<"core", 1>>)([&](auto x_hbm) {
    total = pl::run_scoped(
        [&](auto buf, auto sem) {
          pltpu::async_copy(x_hbm, buf, sem).wait();
          float s = 0;
          for (int i = 0; i < 8; ++i)
            for (int j = 0; j < 128; ++j) s += buf(i, j);
          return s;
        },
        pltpu::VMEM<float, 8, 128>{}, pltpu::SemaphoreType::DMA<>{});
    pl::run_scoped([&](auto smem) { ran_void = smem(0) == INT32_MIN; }, pltpu::SMEM<std::int32_t, 4>{});
  })(x);
  CHECK(total == expected);
  CHECK(ran_void);
}

TEST_CASE("run_scoped: the types may be template arguments", "[run_scoped]") {
  int value = 0;
  run_on<1>([&] {
    value = pl::run_scoped<pltpu::SMEM<std::int32_t, 2>, pltpu::SemaphoreType::REGULAR<>>([](auto s, auto sem) {
      s(0) = 20;
      s(1) = 22;
      pl::semaphore_signal(sem, 3);
      pl::semaphore_wait(sem, 3);
      return s(0) + s(1);
    });
  });
  CHECK(value == 42);
}

TEST_CASE("run_scoped: allocation is stack-like, nests, and is released on return and on throw",
          "[run_scoped]") {
  std::vector<std::uintptr_t> addr;
  run_on<1>([&] {
    auto where = [](auto ref) { return reinterpret_cast<std::uintptr_t>(ref.data()); };
    pl::run_scoped(
        [&](auto outer) {
          addr.push_back(where(outer));
          pl::run_scoped([&](auto inner) { addr.push_back(where(inner)); }, pltpu::VMEM<float, 8, 128>{});
          pl::run_scoped([&](auto inner) { addr.push_back(where(inner)); }, pltpu::VMEM<float, 8, 128>{});
          try {
            pl::run_scoped([&](auto inner) {
              addr.push_back(where(inner));
              throw std::runtime_error("inside");
            }, pltpu::VMEM<float, 8, 128>{});
          } catch (std::runtime_error const&) {
          }
          pl::run_scoped([&](auto inner) { addr.push_back(where(inner)); }, pltpu::VMEM<float, 8, 128>{});
        },
        pltpu::VMEM<float, 16, 128>{});
    pl::run_scoped([&](auto again) { addr.push_back(where(again)); }, pltpu::VMEM<float, 16, 128>{});
    // Many scopes in a loop never exhaust VMEM.
    for (int k = 0; k < 20000; ++k) pl::run_scoped([](auto) {}, pltpu::VMEM<float, 64, 128>{});
  });
  REQUIRE(addr.size() == 6);
  CHECK(addr[1] >= addr[0] + 16 * 128 * 4);  // inner after outer
  CHECK(addr[2] == addr[1]);                 // the first inner scope was released
  CHECK(addr[3] == addr[1]);
  CHECK(addr[4] == addr[1]);                 // ... and the one that threw
  CHECK(addr[5] == addr[0]);
}

TEST_CASE("run_scoped: buffers start poisoned in checked mode", "[run_scoped][checked]") {
  bool nan = false, int_min = false, flag = false;
  run_on<1>([&] {
    pl::run_scoped(
        [&](auto f, auto i, auto b) {
          nan = std::isnan(f(3, 5));
          int_min = i(1) == INT32_MIN;
          flag = b(0);
          f(3, 5) = 1.0f;  // written, then released ...
        },
        pltpu::VMEM<float, 8, 128>{}, pltpu::SMEM<std::int32_t, 2>{}, pltpu::VMEM<bool, 8>{});
    pl::run_scoped([&](auto f) { nan = nan && std::isnan(f(3, 5)); }, pltpu::VMEM<float, 8, 128>{});  // ... poisoned again
  });
  CHECK(nan);
  CHECK(int_min);
  CHECK(flag);
}

TEST_CASE("run_scoped: every core gets its own buffers, and semaphores have the same id on every core",
          "[run_scoped]") {
  std::vector<std::uintptr_t> buffers(2);
  std::vector<std::int32_t> got(2);
  run_on<2, pltpu::SemaphoreType::REGULAR<>>([&](auto barrier) {
    auto const me = pl::axis_index<"core">();
    pl::run_scoped(
        [&](auto buf, auto sem) {
          buffers[static_cast<std::size_t>(me)] = reinterpret_cast<std::uintptr_t>(buf.data());
          pltpu::core_barrier<"core">(barrier);  // both cores allocated the scoped semaphore
          pl::semaphore_signal(sem, 10 + me, 1 - me);
          pl::semaphore_wait(sem, 11 - me);
          got[static_cast<std::size_t>(me)] = static_cast<std::int32_t>(11 - me);
          pltpu::core_barrier<"core">(barrier);  // nobody signals a released semaphore
        },
        pltpu::VMEM<float, 8, 128>{}, pltpu::SemaphoreType::REGULAR<>{});
  });
  CHECK(buffers[0] != buffers[1]);
  CHECK(got == std::vector<std::int32_t>{11, 10});
}

TEST_CASE("run_scoped: asking for more VMEM than the core has is an error naming the bytes", "[run_scoped]") {
  auto const msg = error_of([] {
    run_on<1>([] {
      pl::run_scoped([](auto) {}, pltpu::VMEM<float, 8192, 1024>{});  // 32 MiB: fits
      pl::run_scoped([](auto, auto) {}, pltpu::VMEM<float, 8192, 1024>{}, pltpu::VMEM<float, 8192, 1024>{});
      pl::run_scoped([](auto, auto, auto) {}, pltpu::VMEM<float, 8192, 1024>{}, pltpu::VMEM<float, 8192, 1024>{},
                     pltpu::VMEM<float, 8192, 1024>{});  // 96 MiB > 64 MiB (v5p)
    });
  });
  CHECK_THAT(msg, Contains("pallas::VMEM: allocating 33554432 bytes"));
  CHECK_THAT(msg, Contains("but the core has 67108864"));
}

TEST_CASE("run_scoped: a semaphore not zero when its scope ends is a leak_error", "[run_scoped][checked]") {
  auto const msg = error_of<pl::leak_error>([] {
    run_on<1, pltpu::SemaphoreType::DMA<>>([](auto) {
      pl::run_scoped([](auto sems) { pl::semaphore_signal(sems.at(1), 2); }, pltpu::SemaphoreType::REGULAR<3>{});
    });
  });
  CHECK_THAT(msg, Contains("pallas::run_scoped: every semaphore must be zero when its scope ends"));
  CHECK_THAT(msg, Contains("REGULAR semaphore #2 (element [1] of 3, run_scoped) holds 2"));
}

TEST_CASE("run_scoped: a copy still in flight when its buffers are released is a leak_error",
          "[run_scoped][checked]") {
  pl::Array<float, 8, 128> x;
  for (int i = 0; i < 8 * 128; ++i) x.data()[i] = 1.0f;
  auto const msg = error_of<pl::leak_error>([&] {
    pl::kernel(pl::mesh<pltpu::TensorCoreMesh<"core", 1>>, pl::scratch_types<pltpu::SemaphoreType::DMA<>>)(
        [](auto x_hbm, auto sem) {
          pl::run_scoped([&](auto buf) { pltpu::async_copy(x_hbm, buf, sem); }, pltpu::VMEM<float, 8, 128>{});
        })(x);
  });
  CHECK_THAT(msg, Contains("are still in flight when the scope ends: copy #1 (HBM"));
  CHECK_THAT(msg, Contains("-> VMEM+0 float32[8,128]"));
}

TEST_CASE("run_scoped: outside a kernel it is an error", "[run_scoped]") {
  CHECK_THROWS_WITH(pl::run_scoped([](auto) {}, pltpu::VMEM<float, 8>{}),
                    Contains("pallas::run_scoped: called outside a kernel"));
}

TEST_CASE("run_scoped: a core may signal another's run_scoped semaphore before that core reaches the scope",
          "[run_scoped][semaphore]") {
  // Pallas' cross-core barrier in pl::kernel / core_map: every core, in a run_scoped,
  // signals that semaphore on every core, then waits for num_cores signals. A fast core
  // signals the others' semaphores before they allocated them; the signals count when they
  // do. Core 0 arrives late on purpose (it sleeps first) in some rounds, and no core may
  // leave the barrier before every core arrived.
  auto check = [](auto cores_tag) {
    constexpr int n = decltype(cores_tag)::value;
    for (auto mode : {pltpu::dma_execution_mode::on_wait, pltpu::dma_execution_mode::eager,
                      pltpu::dma_execution_mode::random}) {
      pltpu::scoped_dma_schedule use({mode, 21});
      INFO(n << " cores, DMA order " << static_cast<int>(mode));
      for (int round = 0; round < 4; ++round) {
        std::atomic<int> arrived{0}, early{0};
        run_on<n>([&] {
          pl::index_t const me = pl::axis_index<"core">();
          if (me == round % n && mode != pltpu::dma_execution_mode::random)
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
          ++arrived;
          pl::run_scoped(
              [&](auto sem) {
                for (int c = 0; c < n; ++c) pl::semaphore_signal(sem, 1, c);
                pl::semaphore_wait(sem, n);
              },
              pltpu::SemaphoreType::REGULAR<>{});
          if (arrived.load() != n) ++early;
        });
        CHECK(arrived.load() == n);
        CHECK(early.load() == 0);
      }
    }
  };
  check(std::integral_constant<int, 1>{});
  check(std::integral_constant<int, 2>{});
  check(std::integral_constant<int, 4>{});
}

TEST_CASE("run_scoped: early signals reach the semaphore of the scope's position, nested and after other scopes",
          "[run_scoped][semaphore]") {
  // Core 1 signals core 0's second-level semaphore (inside a nested run_scoped) while core
  // 0 is still in an earlier, unrelated scope: the signal counts for the nested one only.
  std::int32_t seen_outer = -1;
  bool inner_done = false;
  run_on<2, pltpu::SemaphoreType::REGULAR<>>([&](auto ready) {
    pl::index_t const me = pl::axis_index<"core">();
    if (me == 0) {
      pl::run_scoped([](auto) { std::this_thread::sleep_for(std::chrono::milliseconds(5)); },
                     pltpu::VMEM<float, 8, 128>{});
      pl::run_scoped(
          [&](auto outer) {
            seen_outer = pl::semaphore_read(outer);
            pl::run_scoped(
                [&](auto inner) {
                  pl::semaphore_wait(inner, 3);
                  inner_done = true;
                },
                pltpu::SemaphoreType::REGULAR<>{});
            pl::semaphore_signal(ready, 1, 1);
          },
          pltpu::SemaphoreType::REGULAR<>{});
    } else {
      pl::run_scoped(
          [&](auto outer) {
            pl::run_scoped([&](auto inner) { pl::semaphore_signal(inner, 3, 0); }, pltpu::SemaphoreType::REGULAR<>{});
            (void)outer;
          },
          pltpu::SemaphoreType::REGULAR<>{});
      pl::semaphore_wait(ready, 1);
    }
  });
  CHECK(seen_outer == 0);
  CHECK(inner_done);
}
