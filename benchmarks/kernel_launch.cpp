// Launch overhead (DESIGN.md §8, issue 15): an empty pl::kernel against creating and joining
// as many std::jthreads.
//   kernel_launch_vs_jthread             2 cores, launched back to back      goal <= 0.05
//   kernel_launch_after_idle_vs_jthread  the median launch after a 2 ms idle gap (the
//                                        device's threads have parked), 1 and 2 cores,
//                                        against jthread create + join after the same gap
//                                                                             goal <= 0.15
// The device's threads persist and the launching thread runs core 0, so a launch wakes at
// most the other cores' threads and waits for them.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

#include <pallas/pallas.hpp>

#include "goals.hpp"

namespace pl = pallas;
namespace pltpu = pallas::tpu;

namespace {

template <int Cores>
auto empty_kernel() {
  return pl::kernel(pl::mesh<pltpu::TensorCoreMesh<"core", Cores>>)([] {});
}

template <int Cores>
void BM_kernel_launch(benchmark::State& state) {
  auto const empty = empty_kernel<Cores>();
  empty();  // the device starts its threads on first use, outside the timing
  for (auto _ : state) empty();
}

// A launch that allocates a VMEM and an SMEM scratch buffer on each core and copies one
// into a tiny output: what the quickstart's kernels pay besides their work.
void BM_kernel_launch_scratch(benchmark::State& state) {
  auto const k = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 2 * 8>>,
                            pl::mesh<pltpu::TensorCoreMesh<"core", 2>>,
                            pl::scratch_types<pltpu::VMEM<float, 8>, pltpu::SMEM<std::int32_t, 8>>)(
      [](auto o_ref, auto v, auto s) {
        s[0] = 1;
        pltpu::sync_copy(v, o_ref.at(pl::ds<8>(pl::axis_index<"core">() * 8)));
      });
  (void)k();
  for (auto _ : state) benchmark::DoNotOptimize(k());
}

template <int Threads>
void create_join() {
  std::vector<std::jthread> t;
  for (int k = 0; k < Threads; ++k) t.emplace_back([] {});
}

void BM_jthread_create_join(benchmark::State& state) {
  for (auto _ : state) create_join<2>();
}

/// The median time of `f` over `samples` calls, each after `gap` of sleep.
template <class F>
double median_after_gap(F&& f, int samples, std::chrono::microseconds gap) {
  std::vector<double> t;
  for (int k = 0; k < samples; ++k) {
    std::this_thread::sleep_for(gap);
    auto const begin = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count());
  }
  std::nth_element(t.begin(), t.begin() + samples / 2, t.end());
  return t[static_cast<std::size_t>(samples / 2)];
}

// After an idle gap: the medians, and the goal for 1 and 2 cores.
template <int Cores>
void BM_kernel_launch_after_idle(benchmark::State& state) {
  auto const empty = empty_kernel<Cores>();
  empty();
  constexpr auto gap = std::chrono::microseconds(2000);
  double launch = 0, threads = 0;
  for (auto _ : state) {
    launch = median_after_gap(empty, 200, gap);
    threads = median_after_gap(create_join<Cores>, 200, gap);
  }
  state.counters["launch_us"] = launch * 1e6;
  state.counters["jthreads_us"] = threads * 1e6;
  pallas_bench::print_goal("kernel_launch_after_idle_vs_jthread_" + std::to_string(Cores) + "core", launch / threads,
                           "<=", 0.15);
}

}  // namespace

BENCHMARK(BM_kernel_launch<2>)->Name("BM_kernel_launch")->UseRealTime();
BENCHMARK(BM_jthread_create_join)->UseRealTime();
BENCHMARK(BM_kernel_launch<1>)->Name("BM_kernel_launch_1core")->UseRealTime();
BENCHMARK(BM_kernel_launch<4>)->Name("BM_kernel_launch_4cores")->UseRealTime();
BENCHMARK(BM_kernel_launch_scratch)->UseRealTime();
BENCHMARK(BM_kernel_launch_after_idle<1>)->Name("BM_kernel_launch_after_idle_1core")->Iterations(1)->UseRealTime();
BENCHMARK(BM_kernel_launch_after_idle<2>)->Name("BM_kernel_launch_after_idle_2core")->Iterations(1)->UseRealTime();

// ratio = time(launch) / time(create + join): the launch takes ratio x the time.
static int const launch_goal = pallas_bench::time_goal(
    "kernel_launch_vs_jthread", "BM_kernel_launch/real_time", "BM_jthread_create_join/real_time", "<=", 0.05);

PALLAS_BENCHMARK_MAIN()
