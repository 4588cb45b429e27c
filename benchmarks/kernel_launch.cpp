// Launch overhead: an empty pl::kernel on 2 cores, launched back to back, against creating
// and joining 2 std::jthreads (DESIGN.md §8: goal <= 0.5x). The device's threads persist,
// so a launch only wakes them and waits for them; it should cost well under a thread
// creation.

#include <benchmark/benchmark.h>

#include <thread>

#include <pallas/pallas.hpp>

#include "goals.hpp"

namespace pl = pallas;
namespace pltpu = pallas::tpu;

namespace {

template <int Cores>
void BM_kernel_launch(benchmark::State& state) {
  auto const empty = pl::kernel(pl::mesh<pltpu::TensorCoreMesh<"core", Cores>>)([] {});
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

void BM_jthread_create_join(benchmark::State& state) {
  for (auto _ : state) {
    std::jthread a([] {});
    std::jthread b([] {});
  }  // joined here
}

}  // namespace

BENCHMARK(BM_kernel_launch<2>)->Name("BM_kernel_launch")->UseRealTime();
BENCHMARK(BM_jthread_create_join)->UseRealTime();
BENCHMARK(BM_kernel_launch<1>)->Name("BM_kernel_launch_1core")->UseRealTime();
BENCHMARK(BM_kernel_launch<4>)->Name("BM_kernel_launch_4cores")->UseRealTime();
BENCHMARK(BM_kernel_launch_scratch)->UseRealTime();

// ratio = time(launch) / time(create + join): the launch takes ratio x the time.
static int const launch_goal = pallas_bench::time_goal(
    "kernel_launch_vs_jthread", "BM_kernel_launch/real_time", "BM_jthread_create_join/real_time", "<=", 0.5);

PALLAS_BENCHMARK_MAIN()
