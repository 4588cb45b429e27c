// The tiled matmul through pl::pallas_call (DESIGN.md §8):
//   matmul_2048_vs_openblas   matmul.md's kernel (x (bm, bk) blocks at (i, k), y (bk, bn) at
//                             (k, j), an f32 VMEM accumulator zeroed at k == 0 and written at
//                             the last k), 2048^3 f32 on all cores (2, v5p's), with the best
//                             of the square blocks 256, 512, 1024, against OpenBLAS sgemm on
//                             the same number of threads                      goal >= 0.9
//   matmul_2048_bf16_vs_openblas   the same with bf16 inputs (f32 accumulation), against
//                             sgemm on f32                                    goal >= 0.9
// and, as information (no goal): every block size at 1024^3 and 2048^3, and the
// block-sparse (DSD) kernel of sparse.md at 10% density against the dense kernel on the
// same (dense) matrix. Everything is timed in the same run and
// printed as one table at the end.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <pallas/pallas.hpp>

#include "goals.hpp"
#include "openblas_reference.hpp"

namespace pl = pallas;
namespace pltpu = pallas::tpu;

namespace {

constexpr int cores = 2;  // the TensorCores of the call (v5p's count) = OpenBLAS threads

// One random matrix per (type, shape, seed), made once.
template <class T, pl::index_t R, pl::index_t C, unsigned Seed>
pl::Array<T, R, C> const& random_matrix() {
  static auto const a = [] {
    std::mt19937 gen(Seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    return pl::Array<T, R, C>::generate([&](auto, auto) { return T(u(gen)); });
  }();
  return a;
}

// matmul.md's kernel with a scratch accumulator (PrefetchScalarGridSpec(num_scalar_prefetch=0)).
struct matmul_kernel {
  void operator()(auto x_ref, auto y_ref, auto z_ref, auto acc_ref) const {
    using out_t = typename decltype(z_ref)::value_type;
    pl::when(pl::program_id(2) == 0, [&] { acc_ref[pl::ellipsis] = pl::zeros_like(acc_ref); });
    acc_ref[pl::ellipsis] += pl::dot(x_ref[pl::ellipsis], y_ref[pl::ellipsis], pl::preferred_element_type<float>);
    pl::when(pl::program_id(2) == pl::num_programs(2) - 1,
             [&] { z_ref[pl::ellipsis] = pl::astype<out_t>(acc_ref[pl::ellipsis]); });
  }
};

template <pl::index_t M, pl::index_t K, pl::index_t N, pl::index_t bm, pl::index_t bk, pl::index_t bn, class T>
auto make_matmul() {
  return pl::pallas_call(
      matmul_kernel{}, pl::out_shape<pl::ShapeDtypeStruct<T, M, N>>, pltpu::num_scalar_prefetch<0>,
      pl::grid<M / bm, N / bn, K / bk>,
      pl::in_specs(pl::BlockSpec<bm, bk>([](auto i, auto, auto k) { return pl::idx(i, k); }),
                   pl::BlockSpec<bk, bn>([](auto, auto j, auto k) { return pl::idx(k, j); })),
      pl::out_specs(pl::BlockSpec<bm, bn>([](auto i, auto j, auto) { return pl::idx(i, j); })),
      pl::scratch_shapes<pltpu::VMEM<float, bm, bn>>,
      pltpu::compiler_params(pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::PARALLEL, pltpu::ARBITRARY>),
      pltpu::num_cores<cores>);
}

template <pl::index_t S, pl::index_t B, class T>
void BM_pallas_matmul(benchmark::State& state) {
  auto const& x = random_matrix<T, S, S, 1>();
  auto const& y = random_matrix<T, S, S, 2>();
  auto const matmul = make_matmul<S, S, S, B, B, B, T>();
  for (auto _ : state) {
    auto z = matmul(x, y);
    benchmark::DoNotOptimize(z.data());
  }
}

template <pl::index_t S>
void BM_openblas_sgemm(benchmark::State& state) {
  auto const& x = random_matrix<float, S, S, 1>();
  auto const& y = random_matrix<float, S, S, 2>();
  pl::Array<float, S, S> z;
  pallas_bench::use_openblas_reference(cores);
  for (auto _ : state) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, S, S, S, 1.0f, x.data(), S, y.data(), S, 0.0f, z.data(), S);
    benchmark::DoNotOptimize(z.data());
  }
}

// ---- block-sparse (DSD): sparse.md's kernel, x (M x K) with 10% of its (B, B) blocks
// nonzero, times a dense (K x N) y, against the dense kernel on the dense x (the same
// flops as 2048^3).

constexpr pl::index_t sparse_m = 4096, sparse_k = 4096, sparse_n = 512, sparse_b = 256;

struct dsd_kernel {
  void operator()(auto idxs_i_ref, auto, auto x_ref, auto y_ref, auto, auto o_ref, auto acc) const {
    pl::index_t const q = pl::program_id(1), last = pl::num_programs(1) - 1;
    pl::when(q == 0 || idxs_i_ref[q] != idxs_i_ref[q - (q > 0)], [&] { acc[pl::ellipsis] = pl::zeros_like(acc); });
    acc[pl::ellipsis] += pl::dot(x_ref.at(0)[pl::ellipsis], y_ref[pl::ellipsis]);
    pl::when(q == last || idxs_i_ref[q] != idxs_i_ref[q + (q < last)],
             [&] { o_ref[pl::ellipsis] = acc[pl::ellipsis]; });
  }
};

struct sparse_problem {
  std::vector<std::int32_t> rows, cols;
  pl::Array<std::int32_t, pl::dyn> idxs_i{1}, idxs_k{1};
  pl::Array<float, pl::dyn, sparse_b, sparse_b> blocks{1};
  pl::Array<float, sparse_m, sparse_k> dense;  // the same x, dense
  double density = 0;

  static sparse_problem const& get() {
    static sparse_problem const p = [] {
      sparse_problem p;
      constexpr pl::index_t nbm = sparse_m / sparse_b, nbk = sparse_k / sparse_b;
      std::mt19937 gen(7);
      std::vector<int> all(static_cast<std::size_t>(nbm * nbk));
      for (std::size_t q = 0; q < all.size(); ++q) all[q] = static_cast<int>(q);
      std::shuffle(all.begin(), all.end(), gen);
      all.resize(static_cast<std::size_t>((nbm * nbk + 5) / 10));  // 10%
      std::sort(all.begin(), all.end());                           // block-row order
      for (int q : all) {
        p.rows.push_back(static_cast<std::int32_t>(q / nbk));
        p.cols.push_back(static_cast<std::int32_t>(q % nbk));
      }
      auto const nnz = static_cast<pl::index_t>(all.size());
      p.density = static_cast<double>(nnz) / static_cast<double>(nbm * nbk);
      p.idxs_i = pl::Array<std::int32_t, pl::dyn>::from(p.rows, nnz);
      p.idxs_k = pl::Array<std::int32_t, pl::dyn>::from(p.cols, nnz);
      std::uniform_real_distribution<float> u(-1.0f, 1.0f);
      p.blocks = pl::Array<float, pl::dyn, sparse_b, sparse_b>::generate([&](auto, auto, auto) { return u(gen); }, nnz);
      for (pl::index_t q = 0; q < nnz; ++q)
        for (pl::index_t i = 0; i < sparse_b; ++i)
          for (pl::index_t j = 0; j < sparse_b; ++j)
            p.dense(p.rows[static_cast<std::size_t>(q)] * sparse_b + i,
                    p.cols[static_cast<std::size_t>(q)] * sparse_b + j) = p.blocks(q, i, j);
      return p;
    }();
    return p;
  }
};

auto make_dsd(sparse_problem const& p) {
  constexpr pl::index_t b = sparse_b;
  return pl::pallas_call(
      dsd_kernel{}, pl::out_shape<pl::ShapeDtypeStruct<float, sparse_m, sparse_n>>, pltpu::num_scalar_prefetch<2>,
      pl::grid<sparse_n / b, pl::dyn>(p.blocks.extent(0)),
      pl::in_specs(pl::BlockSpec<1, b, b>([](auto, auto q, auto, auto) { return pl::idx(q, 0, 0); }),
                   pl::BlockSpec<b, b>([](auto j, auto q, auto, auto ks) { return pl::idx(ks[q], j); }),
                   pl::BlockSpec<b, b>([](auto j, auto q, auto is, auto) { return pl::idx(is[q], j); })),
      pl::out_specs(pl::BlockSpec<b, b>([](auto j, auto q, auto is, auto) { return pl::idx(is[q], j); })),
      pl::scratch_shapes<pltpu::VMEM<float, b, b>>, pl::input_output_aliases<pl::alias{4, 0}>,
      pltpu::compiler_params(pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::ARBITRARY>), pltpu::num_cores<cores>);
}

void BM_block_sparse_dsd(benchmark::State& state) {
  auto const& p = sparse_problem::get();
  auto const& y = random_matrix<float, sparse_k, sparse_n, 2>();
  auto const zeros = pl::Array<float, sparse_m, sparse_n>();
  auto const dsd = make_dsd(p);
  for (auto _ : state) {
    auto z = dsd(p.idxs_i, p.idxs_k, p.blocks, y, zeros);
    benchmark::DoNotOptimize(z.data());
  }
}

void BM_block_sparse_dense(benchmark::State& state) {
  auto const& p = sparse_problem::get();
  auto const& y = random_matrix<float, sparse_k, sparse_n, 2>();
  auto const matmul = make_matmul<sparse_m, sparse_k, sparse_n, sparse_b, sparse_b, sparse_b, float>();
  for (auto _ : state) {
    auto z = matmul(p.dense, y);
    benchmark::DoNotOptimize(z.data());
  }
}

// Checks the kernels once before timing them: exits non-zero when one is wrong.
bool check_once() {
  auto const& x = random_matrix<float, 1024, 1024, 1>();
  auto const& y = random_matrix<float, 1024, 1024, 2>();
  pl::Array<float, 1024, 1024> ref;
  pallas_bench::use_openblas_reference(cores);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 1024, 1024, 1024, 1.0f, x.data(), 1024, y.data(), 1024, 0.0f,
              ref.data(), 1024);
  bool ok = pl::allclose(make_matmul<1024, 1024, 1024, 256, 256, 256, float>()(x, y), ref, 1e-4, 1e-3);
  auto const& p = sparse_problem::get();
  auto const& ys = random_matrix<float, sparse_k, sparse_n, 2>();
  pl::Array<float, sparse_m, sparse_n> dense_ref;
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, sparse_m, sparse_n, sparse_k, 1.0f, p.dense.data(), sparse_k,
              ys.data(), sparse_n, 0.0f, dense_ref.data(), sparse_n);
  auto const zeros = pl::Array<float, sparse_m, sparse_n>();
  auto const sparse = make_dsd(p)(p.idxs_i, p.idxs_k, p.blocks, ys, zeros);
  ok &= pl::allclose(sparse, dense_ref, 1e-4, 1e-3);
  if (!ok) std::fprintf(stderr, "bench_matmul: a kernel's result differs from OpenBLAS\n");
  return ok;
}

}  // namespace

BENCHMARK(BM_openblas_sgemm<1024>)->Name("openblas_sgemm/1024")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_pallas_matmul<1024, 128, float>)
    ->Name("pallas_f32/1024/128")
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_pallas_matmul<1024, 256, float>)
    ->Name("pallas_f32/1024/256")
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_pallas_matmul<1024, 512, float>)
    ->Name("pallas_f32/1024/512")
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_openblas_sgemm<2048>)->Name("openblas_sgemm/2048")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_pallas_matmul<2048, 128, float>)
    ->Name("pallas_f32/2048/128")
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_pallas_matmul<2048, 256, float>)
    ->Name("pallas_f32/2048/256")
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_pallas_matmul<2048, 512, float>)
    ->Name("pallas_f32/2048/512")
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_pallas_matmul<2048, 1024, float>)
    ->Name("pallas_f32/2048/1024")
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_pallas_matmul<2048, 256, pl::bfloat16>)
    ->Name("pallas_bf16/2048/256")
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_pallas_matmul<2048, 512, pl::bfloat16>)
    ->Name("pallas_bf16/2048/512")
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_pallas_matmul<2048, 1024, pl::bfloat16>)
    ->Name("pallas_bf16/2048/1024")
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_block_sparse_dense)->Name("dense_for_sparse")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_block_sparse_dsd)->Name("block_sparse_10pct")->UseRealTime()->Unit(benchmark::kMillisecond);

int main(int argc, char** argv) {
  if (!check_once()) return 1;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  pallas_bench::recording_reporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();

  auto seconds = [&](std::string const& name) {
    auto it = reporter.seconds.find(name + "/real_time");
    return it == reporter.seconds.end() ? -1.0 : it->second;
  };
  auto gflops = [](double s, double n) { return 2 * n * n * n / s / 1e9; };
  std::printf("\nmatmul, %d cores / OpenBLAS threads (square blocks bm = bk = bn)\n", cores);
  std::printf("%-6s %-16s %-8s %10s %12s\n", "size", "kernel", "blocks", "GFLOP/s", "vs sgemm f32");
  double best_2048 = 0, best_2048_bf16 = 0;
  for (int size : {1024, 2048}) {
    std::string const s = std::to_string(size);
    double const blas = seconds("openblas_sgemm/" + s);
    if (blas > 0) std::printf("%-6d %-16s %-8s %10.1f %12.2f\n", size, "openblas sgemm", "-", gflops(blas, size), 1.0);
    for (char const* kind : {"f32", "bf16"})
      for (int block : {128, 256, 512, 1024}) {
        double const t = seconds(std::string("pallas_") + kind + "/" + s + "/" + std::to_string(block));
        if (t <= 0) continue;
        std::printf("%-6d %-16s %-8d %10.1f %12.2f\n", size, (std::string("pallas_call ") + kind).c_str(), block,
                    gflops(t, size), blas > 0 ? blas / t : 0.0);
        if (size == 2048 && block >= 256 && blas > 0) {
          double& best = std::strcmp(kind, "f32") == 0 ? best_2048 : best_2048_bf16;
          best = std::max(best, blas / t);
        }
      }
  }
  double const dense = seconds("dense_for_sparse"), sparse = seconds("block_sparse_10pct");
  if (dense > 0 && sparse > 0)
    std::printf(
        "\nblock-sparse DSD (%lld x %lld, %.1f%% of its %lld x %lld blocks) @ (%lld x %lld): %.1f ms, dense kernel on "
        "the "
        "same matrices %.1f ms: %.2fx faster (ideal %.1fx)\n",
        static_cast<long long>(sparse_m), static_cast<long long>(sparse_k), 100 * sparse_problem::get().density,
        static_cast<long long>(sparse_b), static_cast<long long>(sparse_b), static_cast<long long>(sparse_k),
        static_cast<long long>(sparse_n), sparse * 1e3, dense * 1e3, dense / sparse,
        1.0 / sparse_problem::get().density);
  std::printf("\n");
  if (best_2048 > 0) pallas_bench::print_goal("matmul_2048_vs_openblas", best_2048, ">=", 0.9);
  if (best_2048_bf16 > 0) pallas_bench::print_goal("matmul_2048_bf16_vs_openblas", best_2048_bf16, ">=", 0.9);
  return 0;
}
