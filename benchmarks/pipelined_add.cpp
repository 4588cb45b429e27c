// The quickstart's pipelined add on 64 MiB f32 arrays, all cores, against a plain fused
// loop on the same number of threads (DESIGN.md §8: goal >= 0.8x).

#include <benchmark/benchmark.h>

#include <thread>
#include <vector>

#include <pallas/pallas.hpp>

#include "goals.hpp"

namespace pl = pallas;
namespace pltpu = pallas::tpu;

namespace {

constexpr pl::index_t rows = 4096, cols = 4096;  // 64 MiB of f32 per array
using mesh = pltpu::TensorCoreMesh<"core">;      // the chip's cores (v5p: 2)
constexpr int threads = mesh::num_cores;

using array = pl::Array<float, rows, cols>;

array const& x_array() {
  static array const x = array::full(2.0f);
  return x;
}
array const& y_array() {
  static array const y = array::full(3.0f);
  return y;
}

void BM_add_fused(benchmark::State& state) {
  auto const& x = x_array();
  auto const& y = y_array();
  array o;
  for (auto _ : state) {
    std::vector<std::jthread> workers;
    for (int t = 0; t < threads; ++t)
      workers.emplace_back([&, t] {
        pl::index_t const begin = x.size() / threads * t, end = x.size() / threads * (t + 1);
        float const* __restrict xs = x.data();
        float const* __restrict ys = y.data();
        float* __restrict os = o.data();
        for (pl::index_t k = begin; k < end; ++k) os[k] = xs[k] + ys[k];
      });
    workers.clear();
    benchmark::DoNotOptimize(o.data());
  }
  state.SetBytesProcessed(state.iterations() * 3 * x.size() * static_cast<std::int64_t>(sizeof(float)));
}

template <pl::index_t BM, pl::index_t BN>
void BM_add_pipelined(benchmark::State& state) {
  auto const& x = x_array();
  auto const& y = y_array();
  auto add = pl::kernel(pl::like(x), pl::mesh<mesh>)([](auto x_hbm, auto y_hbm, auto o_hbm) {
    constexpr auto ij = [](auto i, auto j) { return pl::idx(i, j); };
    pltpu::emit_pipeline(
        [](auto xv, auto yv, auto ov) {
          for (pl::index_t i = 0; i < BM; ++i)
            for (pl::index_t j = 0; j < BN; ++j) ov(i, j) = xv(i, j) + yv(i, j);
        },
        pl::grid<rows / BM, cols / BN>, pl::in_specs(pl::BlockSpec<BM, BN>(ij), pl::BlockSpec<BM, BN>(ij)),
        pl::out_specs(pl::BlockSpec<BM, BN>(ij)), pltpu::core_axis_name<"core">,
        pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::ARBITRARY>)(x_hbm, y_hbm, o_hbm);
  });
  for (auto _ : state) {
    auto o = add(x, y);
    benchmark::DoNotOptimize(o.data());
  }
  state.SetBytesProcessed(state.iterations() * 3 * x.size() * static_cast<std::int64_t>(sizeof(float)));
}

}  // namespace

BENCHMARK(BM_add_fused)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_add_pipelined<128, 128>)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_add_pipelined<256, 512>)->UseRealTime()->Unit(benchmark::kMillisecond);

static int const add_goal = pallas_bench::speed_goal("add_pipelined_vs_fused", "BM_add_pipelined<128, 128>/real_time",
                                                     "BM_add_fused/real_time", ">=", 0.8);

PALLAS_BENCHMARK_MAIN()
