// The automatic executor's measured choice (executor_tuner.hpp): fed launch times, the
// tuner keeps the faster executor, probes the other rarely once the choice is stable,
// follows a machine whose faster executor changes, and is not flipped by noise; launches
// under it give the same results as under either executor, and report what they ran with.
#include <pallas/pallas.hpp>

#include <chrono>
#include <functional>
#include <vector>

#include <catch2/catch.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;
using pl::index_t;
using tuner_t = pl::detail::executor_tuner;
using executor = tuner_t::executor;

namespace {

/// Runs `n` launches on `tuner`, each taking `time_of(executor)` ns; returns their executors.
std::vector<executor> run(tuner_t& tuner, int n, std::function<std::int64_t(executor)> const& time_of) {
  std::vector<executor> picks;
  for (int k = 0; k < n; ++k) {
    executor const e = tuner.pick();
    tuner.record(e, std::chrono::nanoseconds(time_of(e)));
    picks.push_back(e);
  }
  return picks;
}

long count(std::vector<executor> const& picks, executor e, std::size_t from = 0, std::size_t to = ~std::size_t{0}) {
  long n = 0;
  for (std::size_t k = from; k < picks.size() && k < to; ++k) n += picks[k] == e;
  return n;
}

constexpr std::int64_t ms = 1'000'000;

}  // namespace

constexpr int probe = tuner_t::probe_launches;
constexpr int longest = tuner_t::longest_interval;

TEST_CASE("executor_tuner: the first launch warms up, then both executors are timed and the faster kept",
          "[dma_engine][executor_tuner]") {
  SECTION("the DMA thread faster") {
    tuner_t tuner;
    auto const picks = run(tuner, 1 + probe + 2, [](executor e) { return e == executor::dma_thread ? 10 * ms : 16 * ms; });
    // warm-up, then `probe` timed launches with the thread, then one on the core: 60%
    // slower, so the probe stops there and the thread goes on
    std::vector<executor> expected(1 + probe, executor::dma_thread);
    expected.push_back(executor::on_core);
    expected.push_back(executor::dma_thread);
    CHECK(picks == expected);
    CHECK(tuner.kept() == executor::dma_thread);
  }
  SECTION("close: the probe runs all its launches") {
    tuner_t tuner;
    auto const picks = run(tuner, 1 + 2 * probe + 1,
                           [](executor e) { return e == executor::dma_thread ? 10 * ms : 10'500'000; });
    std::vector<executor> expected(1 + probe, executor::dma_thread);
    expected.resize(1 + 2 * probe, executor::on_core);
    expected.push_back(executor::dma_thread);
    CHECK(picks == expected);
    CHECK(tuner.kept() == executor::dma_thread);
  }
  SECTION("the core faster") {
    tuner_t tuner;
    run(tuner, 1 + 2 * probe, [](executor e) { return e == executor::dma_thread ? 22 * ms : 16 * ms; });
    CHECK(tuner.kept() == executor::on_core);
    auto const next = run(tuner, 8, [](executor e) { return e == executor::dma_thread ? 22 * ms : 16 * ms; });
    CHECK(count(next, executor::on_core) == 8);
  }
  SECTION("the warm-up launch's time does not count") {
    tuner_t tuner;
    int k = 0;  // the first launch (the thread's) is very slow, the thread is faster after
    run(tuner, 1 + 2 * probe,
        [&](executor e) { return k++ == 0 ? 100 * ms : e == executor::dma_thread ? 10 * ms : 16 * ms; });
    CHECK(tuner.kept() == executor::dma_thread);
  }
}

TEST_CASE("executor_tuner: once the choice is stable, a clearly slower executor runs 1 launch in 129",
          "[dma_engine][executor_tuner]") {
  STATIC_REQUIRE(longest == 128);
  tuner_t tuner;
  auto const picks = run(tuner, 3000, [](executor e) { return e == executor::dma_thread ? 10 * ms : 14 * ms; });
  CHECK(tuner.kept() == executor::dma_thread);
  // one-launch probes after 3, 8, 16, 32, 64, 128, 128, ... launches of the thread
  CHECK(count(picks, executor::on_core, 0, 1 + probe + 1) == 1);
  CHECK(count(picks, executor::on_core, 1 + probe + 1, 1 + probe + 1 + 8 + 1) == 1);
  long const late = count(picks, executor::on_core, 1000, 3000);
  CHECK(late >= 2000 / (longest + 1));
  CHECK(late <= 2000 / (longest + 1) + 1);
  CHECK(tuner.launches(executor::on_core) == count(picks, executor::on_core));
  CHECK(tuner.launches(executor::dma_thread) == count(picks, executor::dma_thread));
}

TEST_CASE("executor_tuner: when the other executor becomes faster, the next probe switches to it",
          "[dma_engine][executor_tuner]") {
  tuner_t tuner;
  bool thread_fast = true;
  auto const time_of = [&](executor e) {
    return e == executor::dma_thread ? (thread_fast ? 10 * ms : 22 * ms) : 16 * ms;
  };
  run(tuner, 1000, time_of);
  REQUIRE(tuner.kept() == executor::dma_thread);
  thread_fast = false;  // the machine changed: the DMA thread now costs 40% more
  run(tuner, longest + probe, time_of);  // within one longest interval and its probe
  CHECK(tuner.kept() == executor::on_core);
  // Then the core runs every launch but the probes (after 8, 16, 32 and 64 launches), each
  // stopped at its first launch.
  auto const after = run(tuner, 8 + 16 + 32 + 64 + 4, time_of);
  CHECK(count(after, executor::dma_thread) <= 4);
  // And back, when the thread is faster again.
  thread_fast = true;
  run(tuner, longest + probe, time_of);
  CHECK(tuner.kept() == executor::dma_thread);
}

TEST_CASE("executor_tuner: a difference within the switch margin does not change the choice",
          "[dma_engine][executor_tuner]") {
  tuner_t tuner;
  // The core is 2% faster: under switch_margin, the first choice (the thread) stays.
  run(tuner, 500, [](executor e) { return e == executor::dma_thread ? 100 * ms : 98 * ms; });
  CHECK(tuner.kept() == executor::dma_thread);
  // 5% faster: switches at the first probe.
  tuner_t other;
  run(other, 1 + 2 * probe, [](executor e) { return e == executor::dma_thread ? 100 * ms : 95 * ms; });
  CHECK(other.kept() == executor::on_core);
}

TEST_CASE("executor_tuner: one slow launch of the kept executor does not hand the choice over",
          "[dma_engine][executor_tuner]") {
  tuner_t tuner;
  run(tuner, 300, [](executor e) { return e == executor::dma_thread ? 10 * ms : 14 * ms; });
  REQUIRE(tuner.kept() == executor::dma_thread);
  // From now on, one launch of the thread in every 10 is slow (a passing blip): the median
  // of its last launches before each probe stays fast.
  int k = 0;
  run(tuner, 2000,
      [&](executor e) { return e == executor::dma_thread ? (++k % 10 == 0 ? 40 * ms : 10 * ms) : 14 * ms; });
  CHECK(tuner.kept() == executor::dma_thread);
}

TEST_CASE("executor_tuner: an erratic executor that is sometimes fast but slower on the whole is not kept",
          "[dma_engine][executor_tuner]") {
  // The DMA thread as measured where it lost: one launch in three fast (9 ms), the others
  // slow (25 ms), a mean of 19.7 ms against the core's steady 16 ms. The best of a few of
  // its launches beats the core; their median does not.
  tuner_t tuner;
  int k = 0;
  auto const picks =
      run(tuner, 2000, [&](executor e) { return e == executor::on_core ? 16 * ms : (k++ % 3 == 0 ? 9 * ms : 25 * ms); });
  CHECK(tuner.kept() == executor::on_core);
  CHECK(count(picks, executor::dma_thread, 1000, 2000) <= probe * (1000 / (longest + 1) + 1));
}

namespace {

constexpr index_t rows = 64, cols = 256;  // 64 KiB blocks of f32: the DMA thread's size

/// A pipelined x + 1 over four blocks, on one core.
pl::Array<float, 4 * rows, cols> add_one(pl::Array<float, 4 * rows, cols> const& x) {
  return pl::pallas_call(
      [](auto x_ref, auto o_ref) { o_ref[pl::ellipsis] = x_ref[pl::ellipsis] + 1.0f; }, pl::like(x), pl::grid<4>,
      pl::in_specs(pl::BlockSpec<rows, cols>([](auto i) { return pl::idx(i, 0); })),
      pl::out_specs(pl::BlockSpec<rows, cols>([](auto i) { return pl::idx(i, 0); })))(x);
}

}  // namespace

TEST_CASE("executor_tuner: a kernel's launches under the automatic executor switch executors and stay right",
          "[dma_engine][executor_tuner]") {
  pl::Array<float, 4 * rows, cols> x;
  for (index_t k = 0; k < x.size(); ++k) x.data()[k] = static_cast<float>((k * 13) % 1021);
  pltpu::scoped_dma_schedule order({pltpu::dma_execution_mode::on_wait});

  pltpu::scoped_dma_executor use(pltpu::dma_executor::automatic);
  std::vector<pltpu::dma_executor> used;
  for (int launch = 0; launch < 12; ++launch) {
    auto const o = add_one(x);
    bool right = true;
    for (index_t k = 0; k < x.size(); ++k) right &= o.data()[k] == x.data()[k] + 1.0f;
    CHECK(right);
    used.push_back(pltpu::last_launch_dma_executor());
  }
  for (auto e : used) CHECK(e != pltpu::dma_executor::automatic);
  STATIC_REQUIRE(tuner_t::probe_launches == 3);
  long on_core = 0;
  for (std::size_t k = 0; k < 5; ++k) on_core += used[k] == pltpu::dma_executor::on_core;
  // With a CPU to spare, the tuner's probe runs the kernel's 5th launch on the core (after
  // a warm-up and three with the DMA thread), unless the starvation rule kept an earlier
  // one on the core (without asking the tuner); without a CPU to spare, every launch runs
  // there.
  CHECK(on_core >= 1);
  if (!pl::detail::cpu_to_spare(1)) CHECK(on_core == 5);
}

TEST_CASE("executor_tuner: a launch reports the executor it ran with", "[dma_engine][executor_tuner]") {
  pl::Array<float, 4 * rows, cols> x;
  for (index_t k = 0; k < x.size(); ++k) x.data()[k] = static_cast<float>(k % 97);
  {
    pltpu::scoped_dma_executor use(pltpu::dma_executor::on_core);
    pltpu::scoped_dma_schedule order({pltpu::dma_execution_mode::on_wait});
    add_one(x);
    CHECK(pltpu::last_launch_dma_executor() == pltpu::dma_executor::on_core);
  }
  {
    pltpu::scoped_dma_executor use(pltpu::dma_executor::dma_thread);
    pltpu::scoped_dma_schedule order({pltpu::dma_execution_mode::on_wait});
    add_one(x);
    CHECK(pltpu::last_launch_dma_executor() == pltpu::dma_executor::dma_thread);
  }
  {
    // The eager and random orders move every copy on its core.
    pltpu::scoped_dma_executor use(pltpu::dma_executor::dma_thread);
    pltpu::scoped_dma_schedule order({pltpu::dma_execution_mode::eager});
    add_one(x);
    CHECK(pltpu::last_launch_dma_executor() == pltpu::dma_executor::on_core);
  }
}
