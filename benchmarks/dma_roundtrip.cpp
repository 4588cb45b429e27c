// A small DMA's round trip: make_async_copy(...).start() then .wait() of one (8, 128) f32
// tile (4 KiB) from HBM into VMEM, inside a 1-core kernel, against a plain memcpy of the
// same bytes between the same kind of buffers. The difference is the engine's overhead per
// copy: building the descriptor's task, queueing it, finding it at the wait, signaling and
// consuming the semaphore. Goal: the round trip costs at most 3x the memcpy.
//
// Other sizes (512 B, 64 KiB) are printed for reference, as is the checked-mode cost when
// the program is built with PALLAS_CHECKED=1 (benchmarks build with NDEBUG: unchecked).

#include <benchmark/benchmark.h>

#include <cstring>
#include <vector>

#include <pallas/pallas.hpp>

#include "goals.hpp"

namespace pl = pallas;
namespace pltpu = pallas::tpu;

namespace {

template <pl::index_t Rows>
void BM_dma_roundtrip(benchmark::State& state) {
  pl::Array<float, Rows, 128> x;
  for (pl::index_t i = 0; i < Rows * 128; ++i) x.data()[i] = static_cast<float>(i);
  // The benchmark loop runs on the core's thread (the launching thread only waits), so
  // the timing covers start + wait and nothing of the launch.
  pl::kernel(pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
             pl::scratch_types<pltpu::VMEM<float, Rows, 128>, pltpu::SemaphoreType::DMA<>>)(
      [&state](auto x_hbm, auto buf, auto sem) {
        auto copy = pltpu::make_async_copy(x_hbm, buf, sem);
        for (auto _ : state) {
          copy.start();
          copy.wait();
          benchmark::DoNotOptimize(buf.data());
          benchmark::ClobberMemory();
        }
      })(x);
  state.SetBytesProcessed(state.iterations() * Rows * 128 * static_cast<std::int64_t>(sizeof(float)));
}

template <pl::index_t Rows>
void BM_memcpy(benchmark::State& state) {
  pl::Array<float, Rows, 128> x;
  for (pl::index_t i = 0; i < Rows * 128; ++i) x.data()[i] = static_cast<float>(i);
  pl::Array<float, Rows, 128> y;
  std::size_t const bytes = static_cast<std::size_t>(Rows * 128) * sizeof(float);
  for (auto _ : state) {
    benchmark::DoNotOptimize(x.data());
    std::memcpy(y.data(), x.data(), bytes);
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(bytes));
}

}  // namespace

BENCHMARK(BM_dma_roundtrip<8>)->Name("BM_dma_roundtrip/4KiB")->UseRealTime();
BENCHMARK(BM_memcpy<8>)->Name("BM_memcpy/4KiB")->UseRealTime();
BENCHMARK(BM_dma_roundtrip<1>)->Name("BM_dma_roundtrip/512B")->UseRealTime();
BENCHMARK(BM_memcpy<1>)->Name("BM_memcpy/512B")->UseRealTime();
BENCHMARK(BM_dma_roundtrip<128>)->Name("BM_dma_roundtrip/64KiB")->UseRealTime();
BENCHMARK(BM_memcpy<128>)->Name("BM_memcpy/64KiB")->UseRealTime();

// ratio = time(start + wait) / time(memcpy) of the same 4 KiB.
static int const roundtrip_goal = pallas_bench::time_goal(
    "dma_roundtrip_vs_memcpy", "BM_dma_roundtrip/4KiB/real_time", "BM_memcpy/4KiB/real_time", "<=", 3.0);

PALLAS_BENCHMARK_MAIN()
