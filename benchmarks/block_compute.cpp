// Block compute on VMEM-resident blocks (DESIGN.md §8):
//   block_elementwise_vs_loop*   `o[...] = <body>` against the bare loop over the same
//                                buffers                                     goal >= 0.8
//   block_dot_f32_*_vs_sgemm     `acc[...] += pl::dot(x, y)` (f32) against OpenBLAS
//                                cblas_sgemm (1 thread, beta = 1) on the same blocks
//                                                                            goal >= 1.0
//   block_dot_bf16_*_vs_f32      the same product with bf16 operands and
//                                preferred_element_type<float>, against the f32 path
//                                                                            goal >= 0.9
// Every ratio comes from timings of the same run.

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <random>
#include <string>

#include <pallas/pallas.hpp>

#include "goals.hpp"
#include "openblas_reference.hpp"

namespace pl = pallas;

namespace {

template <class T>
struct buffer {
  std::unique_ptr<T[], pl::detail::block_delete> data;
  explicit buffer(std::int64_t n, unsigned seed) : data(pl::detail::allocate_block<T>(n)) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (std::int64_t i = 0; i < n; ++i) data[i] = T(u(gen));
  }
  T* get() const { return data.get(); }
};

template <class T, std::int64_t R, std::int64_t C>
using vmem_ref = pl::Ref<T, pl::shape<R, C>, pl::memory_space::vmem>;

template <class T, std::int64_t R, std::int64_t C>
vmem_ref<T, R, C> ref_of(buffer<T> const& b) {
  return vmem_ref<T, R, C>(b.get(), pl::shape<R, C>{});
}

// ---------------------------------------------------------------------------------------
// elementwise: 256 x 256 f32 blocks (3 x 256 KiB, resident in L2)

constexpr std::int64_t er = 256, ec = 256, en = er * ec;

void BM_elementwise_axpy_loop(benchmark::State& state) {
  buffer<float> x(en, 1), y(en, 2), o(en, 3);
  float* xp = x.get();
  float* yp = y.get();
  float* op = o.get();
  for (auto _ : state) {
    for (std::int64_t i = 0; i < en; ++i) op[i] = xp[i] * 2.0f + yp[i];
    benchmark::ClobberMemory();
  }
}

void BM_elementwise_axpy_block(benchmark::State& state) {
  buffer<float> xb(en, 1), yb(en, 2), ob(en, 3);
  auto x = ref_of<float, er, ec>(xb);
  auto y = ref_of<float, er, ec>(yb);
  auto o = ref_of<float, er, ec>(ob);
  for (auto _ : state) {
    o[pl::ellipsis] = x[pl::ellipsis] * 2 + y[pl::ellipsis];
    benchmark::ClobberMemory();
  }
}

// a wider body: bias row broadcast, scale, ReLU, accumulate
void BM_elementwise_relu_loop(benchmark::State& state) {
  buffer<float> x(en, 1), b(ec, 2), o(en, 3);
  float* xp = x.get();
  float* bp = b.get();
  float* op = o.get();
  for (auto _ : state) {
    for (std::int64_t i = 0; i < er; ++i)
      for (std::int64_t j = 0; j < ec; ++j) {
        float const v = xp[i * ec + j] * 0.5f + bp[j];
        op[i * ec + j] += v > 0.0f ? v : 0.0f;
      }
    benchmark::ClobberMemory();
  }
}

void BM_elementwise_relu_block(benchmark::State& state) {
  buffer<float> xb(en, 1), bb(ec, 2), ob(en, 3);
  auto x = ref_of<float, er, ec>(xb);
  auto b = ref_of<float, 1, ec>(bb);
  auto o = ref_of<float, er, ec>(ob);
  for (auto _ : state) {
    o[pl::ellipsis] += pl::maximum(x[pl::ellipsis] * 0.5f + b[pl::ellipsis], 0);
    benchmark::ClobberMemory();
  }
}

// ---------------------------------------------------------------------------------------
// dot: acc (M, N) += x (M, K) @ y (K, N)

template <std::int64_t M, std::int64_t N, std::int64_t K>
void BM_dot_sgemm(benchmark::State& state) {
  pallas_bench::use_openblas_reference(1);
  buffer<float> x(M * K, 1), y(K * N, 2), acc(M * N, 3);
  for (auto _ : state) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, x.get(), K, y.get(), N,
                1.0f, acc.get(), N);
    benchmark::ClobberMemory();
  }
  state.counters["GFLOPS"] = benchmark::Counter(2.0 * M * N * K, benchmark::Counter::kIsIterationInvariantRate,
                                                benchmark::Counter::kIs1000);
}

template <std::int64_t M, std::int64_t N, std::int64_t K>
void BM_dot_f32(benchmark::State& state) {
  buffer<float> xb(M * K, 1), yb(K * N, 2), accb(M * N, 3);
  auto x = ref_of<float, M, K>(xb);
  auto y = ref_of<float, K, N>(yb);
  auto acc = ref_of<float, M, N>(accb);
  for (auto _ : state) {
    acc[pl::ellipsis] += pl::dot(x[pl::ellipsis], y[pl::ellipsis]);
    benchmark::ClobberMemory();
  }
  state.counters["GFLOPS"] = benchmark::Counter(2.0 * M * N * K, benchmark::Counter::kIsIterationInvariantRate,
                                                benchmark::Counter::kIs1000);
}

template <std::int64_t M, std::int64_t N, std::int64_t K>
void BM_dot_bf16(benchmark::State& state) {
  buffer<pl::bfloat16> xb(M * K, 1), yb(K * N, 2);
  buffer<float> accb(M * N, 3);
  auto x = ref_of<pl::bfloat16, M, K>(xb);
  auto y = ref_of<pl::bfloat16, K, N>(yb);
  auto acc = ref_of<float, M, N>(accb);
  for (auto _ : state) {
    acc[pl::ellipsis] += pl::dot(x[pl::ellipsis], y[pl::ellipsis], pl::preferred_element_type<float>);
    benchmark::ClobberMemory();
  }
  state.counters["GFLOPS"] = benchmark::Counter(2.0 * M * N * K, benchmark::Counter::kIsIterationInvariantRate,
                                                benchmark::Counter::kIs1000);
}

}  // namespace

BENCHMARK(BM_elementwise_axpy_loop)->UseRealTime();
BENCHMARK(BM_elementwise_axpy_block)->UseRealTime();
BENCHMARK(BM_elementwise_relu_loop)->UseRealTime();
BENCHMARK(BM_elementwise_relu_block)->UseRealTime();
BENCHMARK(BM_dot_sgemm<128, 128, 128>)->Name("BM_dot_sgemm_128")->UseRealTime();
BENCHMARK(BM_dot_f32<128, 128, 128>)->Name("BM_dot_f32_128")->UseRealTime();
BENCHMARK(BM_dot_bf16<128, 128, 128>)->Name("BM_dot_bf16_128")->UseRealTime();
BENCHMARK(BM_dot_sgemm<256, 256, 256>)->Name("BM_dot_sgemm_256")->UseRealTime();
BENCHMARK(BM_dot_f32<256, 256, 256>)->Name("BM_dot_f32_256")->UseRealTime();
BENCHMARK(BM_dot_bf16<256, 256, 256>)->Name("BM_dot_bf16_256")->UseRealTime();
BENCHMARK(BM_dot_sgemm<512, 512, 128>)->Name("BM_dot_sgemm_512x512x128")->UseRealTime();
BENCHMARK(BM_dot_f32<512, 512, 128>)->Name("BM_dot_f32_512x512x128")->UseRealTime();
BENCHMARK(BM_dot_bf16<512, 512, 128>)->Name("BM_dot_bf16_512x512x128")->UseRealTime();

static int const goals = [] {
  using pallas_bench::speed_goal;
  speed_goal("block_elementwise_vs_loop", "BM_elementwise_axpy_block/real_time",
             "BM_elementwise_axpy_loop/real_time", ">=", 0.8);
  speed_goal("block_elementwise_bias_relu_vs_loop", "BM_elementwise_relu_block/real_time",
             "BM_elementwise_relu_loop/real_time", ">=", 0.8);
  for (std::string size : {"128", "256", "512x512x128"}) {
    speed_goal("block_dot_f32_" + size + "_vs_sgemm", "BM_dot_f32_" + size + "/real_time",
               "BM_dot_sgemm_" + size + "/real_time", ">=", 1.0);
    speed_goal("block_dot_bf16_" + size + "_vs_f32", "BM_dot_bf16_" + size + "/real_time",
               "BM_dot_f32_" + size + "/real_time", ">=", 0.9);
  }
  return 0;
}();

PALLAS_BENCHMARK_MAIN()
