// The ring all-reduce kernel (examples/ring_all_reduce; ring_all_reduce.hpp) on 4 chips in
// this process, against memcpy moving the same bytes on one thread: every block the kernel's
// copies move (per chip: its 4 input blocks into VMEM, 3 blocks sent in the reduce-scatter,
// its reduced block to the output, 3 blocks sent in the all-gather), between buffers laid
// out as the kernel's. `allreduce_4chips_vs_memcpy` is time(memcpy) / time(launch), goal
// >= 0.5: the 4 chips' cores, their remote copies and the adds cost at most twice the bare
// copying. The launch's result is checked against a plain sum first.
//
// Each launch returns fresh output arrays (512 KiB per chip); the Arrays' buffer pool
// (array.hpp) hands the next launch the buffers the last one freed, so, as the reference,
// which reuses its buffers, the launch faults in no fresh pages after the first.

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <pallas/pallas.hpp>

#include "goals.hpp"
#include "ring_all_reduce.hpp"

namespace pl = pallas;

namespace {

constexpr int N = 4;            // chips
constexpr pl::index_t R = 256;  // rows of 128 floats per block: N blocks, 512 KiB per chip
using mesh = pl::device_mesh<"x", N>;
using shard = pl::Array<float, N, R, 128>;

std::vector<shard> inputs() {
  std::vector<shard> xs(N);
  for (int d = 0; d < N; ++d)
    for (pl::index_t k = 0; k < xs[static_cast<std::size_t>(d)].size(); ++k)
      xs[static_cast<std::size_t>(d)].data()[k] = static_cast<float>((d * 31 + k * 7) % 97);
  return xs;
}

void BM_allreduce_4chips(benchmark::State& state) {
  auto const xs = inputs();
  auto const kernel = pallas_bench::ring_all_reduce_kernel<N, R>();
  auto sum = shard::full(0.0f);
  for (auto const& x : xs)
    for (pl::index_t k = 0; k < sum.size(); ++k) sum.data()[k] += x.data()[k];
  for (auto const& y : pl::shard_map<mesh>(kernel)(xs))
    if (!(y == sum)) {
      std::fprintf(stderr, "bench_allreduce_4chips: the kernel's sum is WRONG\n");
      std::exit(1);
    }
  for (auto _ : state) {
    auto ys = pl::shard_map<mesh>(kernel)(xs);
    benchmark::DoNotOptimize(ys.data());
  }
}

void BM_memcpy_same_bytes(benchmark::State& state) {
  auto const xs = inputs();
  std::vector<shard> work(N), out(N);
  std::vector<pl::Array<float, N - 1, R, 128>> inbox(N);
  std::size_t const block = static_cast<std::size_t>(R * 128) * sizeof(float);
  for (auto _ : state) {
    for (std::size_t d = 0; d < N; ++d) {
      std::size_t const right = (d + 1) % N;
      std::memcpy(work[d].data(), xs[d].data(), N * block);  // the input into VMEM
      for (std::size_t s = 0; s + 1 < N; ++s)                // the reduce-scatter's sends
        std::memcpy(inbox[right].data() + s * block / sizeof(float), work[d].data() + s * block / sizeof(float), block);
      std::memcpy(out[d].data(), work[d].data(), block);  // the reduced block to the output
      for (std::size_t s = 0; s + 1 < N; ++s)             // the all-gather's sends
        std::memcpy(out[right].data() + (s + 1) * block / sizeof(float), out[d].data() + s * block / sizeof(float), block);
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
}

}  // namespace

BENCHMARK(BM_allreduce_4chips)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_memcpy_same_bytes)->UseRealTime()->Unit(benchmark::kMicrosecond);

// ratio = time(memcpy of the same bytes) / time(launch of the kernel on 4 chips).
static int const allreduce_goal = pallas_bench::speed_goal(
    "allreduce_4chips_vs_memcpy", "BM_allreduce_4chips/real_time", "BM_memcpy_same_bytes/real_time", ">=", 0.5);

PALLAS_BENCHMARK_MAIN()
