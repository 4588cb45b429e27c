// The kernels of examples/fused_softmax, layer_norm, flash_attention and grouped_matmul
// (the same pallas_call ports, f32, on the chip's two TensorCores) against a naive C++ loop
// over the same data on the same number of threads (two std::jthreads splitting the rows):
//   softmax_vs_naive          row softmax, 2048 x 1024, blocks of 128 rows     goal >= 1.0
//   layer_norm_vs_naive       layer norm with weight, bias, mean and rstd out  goal >= 1.0
//   flash_attention_vs_naive  (4, 512, 128) attention, blocks (128, 128)       goal >= 1.0
//   gmm_vs_naive              grouped matmul, 1024 x 512 x 512, 6 uneven groups goal >= 1.0
// Each ratio is time(naive) / time(kernel) from the same run.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <thread>
#include <tuple>
#include <vector>

#include <pallas/pallas.hpp>

#include "goals.hpp"

namespace pl = pallas;
namespace pltpu = pallas::tpu;

namespace {

constexpr int threads = 2;  // the v5p's TensorCores, which the kernels run on

// f(begin, end) over [0, n) split into `threads` consecutive ranges, one jthread each.
template <class F>
void parallel_for(pl::index_t n, F const& f) {
  std::vector<std::jthread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back([&, t] { f(n * t / threads, n * (t + 1) / threads); });
}

float hashed(std::int64_t e, std::uint32_t salt) {
  std::uint32_t h = static_cast<std::uint32_t>(e) * 2654435761u ^ salt * 40503u;
  h ^= h >> 15;
  h *= 2246822519u;
  h ^= h >> 13;
  return static_cast<float>(h % 4096) / 2048.0f - 1.0f;
}

template <class A>
void fill(A& a, std::uint32_t salt, float scale = 1.0f) {
  for (pl::index_t e = 0; e < a.size(); ++e) a.data()[e] = scale * hashed(e, salt);
}

// ---------------------------------------------------------------------------------------
// softmax

constexpr pl::index_t sm_rows = 2048, sm_cols = 1024, sm_block = 128;

void BM_softmax_kernel(benchmark::State& state) {
  pl::Array<float, sm_rows, sm_cols> x;
  fill(x, 1, 4.0f);
  auto const spec = pl::BlockSpec<sm_block, sm_cols>([](auto i) { return pl::idx(i, 0); });
  auto const call = pl::pallas_call(
      [](auto x_ref, auto o_ref) {
        auto const v = pl::load(x_ref);
        auto const e = pl::eval(pl::exp(v - pl::max(v, pl::axis<1>, pl::keepdims)));
        o_ref[pl::ellipsis] = e / pl::sum(e, pl::axis<1>, pl::keepdims);
      },
      pl::out_shape<pl::ShapeDtypeStruct<float, sm_rows, sm_cols>>, pl::grid<sm_rows / sm_block>, pl::in_specs(spec),
      pl::out_specs(spec), pltpu::compiler_params(pltpu::dimension_semantics<pltpu::PARALLEL>));
  for (auto _ : state) {
    auto o = call(x);
    benchmark::DoNotOptimize(o.data());
  }
}

void BM_softmax_naive(benchmark::State& state) {
  std::vector<float> x(sm_rows * sm_cols), o(sm_rows * sm_cols);
  for (std::size_t e = 0; e < x.size(); ++e) x[e] = 4.0f * hashed(static_cast<std::int64_t>(e), 1);
  for (auto _ : state) {
    parallel_for(sm_rows, [&](pl::index_t begin, pl::index_t end) {
      for (pl::index_t i = begin; i < end; ++i) {
        float const* xr = &x[static_cast<std::size_t>(i * sm_cols)];
        float* orow = &o[static_cast<std::size_t>(i * sm_cols)];
        float m = -INFINITY, s = 0;
        for (pl::index_t j = 0; j < sm_cols; ++j) m = std::max(m, xr[j]);
        for (pl::index_t j = 0; j < sm_cols; ++j) s += orow[j] = std::exp(xr[j] - m);
        for (pl::index_t j = 0; j < sm_cols; ++j) orow[j] /= s;
      }
    });
    benchmark::DoNotOptimize(o.data());
    benchmark::ClobberMemory();
  }
}

// ---------------------------------------------------------------------------------------
// layer norm

constexpr pl::index_t ln_rows = 2048, ln_cols = 1024, ln_block = 128;
constexpr float eps = 1e-5f;

void BM_layer_norm_kernel(benchmark::State& state) {
  pl::Array<float, ln_rows, ln_cols> x;
  pl::Array<float, 1, ln_cols> w, b;
  fill(x, 2, 3.0f);
  fill(w, 3);
  fill(b, 4);
  auto const rows_spec = pl::BlockSpec<ln_block, ln_cols>([](auto i) { return pl::idx(i, 0); });
  auto const stat_spec = pl::BlockSpec<ln_block, 1>([](auto i) { return pl::idx(i, 0); });
  auto const row_spec = pl::BlockSpec<1, ln_cols>([](auto) { return pl::idx(0, 0); });
  auto const call = pl::pallas_call(
      [](auto x_ref, auto w_ref, auto b_ref, auto o_ref, auto mean_ref, auto rstd_ref) {
        auto const v = pl::load(x_ref);
        auto const mean = pl::eval(pl::mean(v, pl::axis<1>, pl::keepdims));
        auto const centered = pl::eval(v - mean);
        auto const rstd = pl::eval(pl::rsqrt(pl::mean(centered * centered, pl::axis<1>, pl::keepdims) + eps));
        o_ref[pl::ellipsis] = centered * rstd * w_ref[pl::ellipsis] + b_ref[pl::ellipsis];
        mean_ref[pl::ellipsis] = mean;
        rstd_ref[pl::ellipsis] = rstd;
      },
      pl::out_shape<pl::ShapeDtypeStruct<float, ln_rows, ln_cols>, pl::ShapeDtypeStruct<float, ln_rows, 1>,
                    pl::ShapeDtypeStruct<float, ln_rows, 1>>,
      pl::grid<ln_rows / ln_block>, pl::in_specs(rows_spec, row_spec, row_spec),
      pl::out_specs(rows_spec, stat_spec, stat_spec),
      pltpu::compiler_params(pltpu::dimension_semantics<pltpu::PARALLEL>));
  for (auto _ : state) {
    auto o = call(x, w, b);
    benchmark::DoNotOptimize(std::get<0>(o).data());
  }
}

void BM_layer_norm_naive(benchmark::State& state) {
  std::vector<float> x(ln_rows * ln_cols), o(ln_rows * ln_cols), w(ln_cols), b(ln_cols), mean(ln_rows), rstd(ln_rows);
  for (std::size_t e = 0; e < x.size(); ++e) x[e] = 3.0f * hashed(static_cast<std::int64_t>(e), 2);
  for (std::size_t j = 0; j < w.size(); ++j) {
    w[j] = hashed(static_cast<std::int64_t>(j), 3);
    b[j] = hashed(static_cast<std::int64_t>(j), 4);
  }
  for (auto _ : state) {
    parallel_for(ln_rows, [&](pl::index_t begin, pl::index_t end) {
      for (pl::index_t i = begin; i < end; ++i) {
        float const* xr = &x[static_cast<std::size_t>(i * ln_cols)];
        float* orow = &o[static_cast<std::size_t>(i * ln_cols)];
        float s = 0, sq = 0;
        for (pl::index_t j = 0; j < ln_cols; ++j) s += xr[j];
        float const mu = s / ln_cols;
        for (pl::index_t j = 0; j < ln_cols; ++j) sq += (xr[j] - mu) * (xr[j] - mu);
        float const r = 1.0f / std::sqrt(sq / ln_cols + eps);
        for (pl::index_t j = 0; j < ln_cols; ++j)
          orow[j] = (xr[j] - mu) * r * w[static_cast<std::size_t>(j)] + b[static_cast<std::size_t>(j)];
        mean[static_cast<std::size_t>(i)] = mu;
        rstd[static_cast<std::size_t>(i)] = r;
      }
    });
    benchmark::DoNotOptimize(o.data());
    benchmark::ClobberMemory();
  }
}

// ---------------------------------------------------------------------------------------
// flash attention (non-causal, f32, (bq, 128) m/l scratch)

constexpr pl::index_t fa_bh = 4, fa_seq = 512, fa_d = 128, fa_bq = 128, fa_bk = 128;

void BM_flash_attention_kernel(benchmark::State& state) {
  using Seq = pl::Array<float, fa_bh, fa_seq, fa_d>;
  Seq q, k, v;
  fill(q, 5, 2.0f);
  fill(k, 6, 2.0f);
  fill(v, 7);
  float const sm_scale = 1.0f / std::sqrt(static_cast<float>(fa_d));
  auto const kernel = [sm_scale](auto q_ref, auto k_ref, auto v_ref, auto o_ref, auto m_ref, auto l_ref, auto acc_ref) {
    pl::when(pl::program_id(2) == 0, [&] {
      m_ref[pl::ellipsis] = pl::full_like(m_ref, -INFINITY);
      l_ref[pl::ellipsis] = pl::zeros_like(l_ref);
      acc_ref[pl::ellipsis] = pl::zeros_like(acc_ref);
    });
    auto const s = pl::eval(pl::dot_general(q_ref[pl::ellipsis], k_ref[pl::ellipsis], pl::contracting_dims<1, 1>,
                                            pl::preferred_element_type<float>) *
                            sm_scale);
    auto const m_prev = pl::load(m_ref);
    auto const l_prev = pl::load(l_ref);
    auto const m_next = pl::eval(pl::maximum(m_prev, pl::max(s, pl::axis<1>, pl::keepdims)));
    auto const p = pl::eval(pl::exp(s - m_next));  // bk == 128 lanes: no repeat needed
    auto const l_corr = pl::eval(pl::exp(m_prev - m_next) * l_prev);
    auto const l_next = pl::eval(pl::sum(p, pl::axis<1>, pl::keepdims) + l_corr);
    m_ref[pl::ellipsis] = m_next;
    l_ref[pl::ellipsis] = l_next;
    auto const inv = pl::eval(pl::where(l_next == 0.0f, 1.0f, 1.0f / l_next));
    acc_ref[pl::ellipsis] *= l_corr * inv;  // head_dim == 128 lanes
    acc_ref[pl::ellipsis] += pl::dot(p, v_ref[pl::ellipsis], pl::preferred_element_type<float>) * inv;
    pl::when(pl::program_id(2) == pl::num_programs(2) - 1, [&] { o_ref[pl::ellipsis] = acc_ref[pl::ellipsis]; });
  };
  auto const q_spec = pl::BlockSpec<pl::squeezed, fa_bq, fa_d>([](auto b, auto i, auto) { return pl::idx(b, i, 0); });
  auto const kv_spec = pl::BlockSpec<pl::squeezed, fa_bk, fa_d>([](auto b, auto, auto j) { return pl::idx(b, j, 0); });
  auto const call = pl::pallas_call(
      kernel, pl::out_shape<pl::ShapeDtypeStruct<float, fa_bh, fa_seq, fa_d>>,
      pl::grid<fa_bh, fa_seq / fa_bq, fa_seq / fa_bk>, pl::in_specs(q_spec, kv_spec, kv_spec), pl::out_specs(q_spec),
      pl::scratch_shapes<pltpu::VMEM<float, fa_bq, 128>, pltpu::VMEM<float, fa_bq, 128>,
                         pltpu::VMEM<float, fa_bq, fa_d>>,
      pltpu::compiler_params(pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::PARALLEL, pltpu::ARBITRARY>));
  for (auto _ : state) {
    auto o = call(q, k, v);
    benchmark::DoNotOptimize(o.data());
  }
}

void BM_flash_attention_naive(benchmark::State& state) {
  std::size_t const size = fa_bh * fa_seq * fa_d;
  std::vector<float> q(size), k(size), v(size), o(size);
  for (std::size_t e = 0; e < size; ++e) {
    q[e] = 2.0f * hashed(static_cast<std::int64_t>(e), 5);
    k[e] = 2.0f * hashed(static_cast<std::int64_t>(e), 6);
    v[e] = hashed(static_cast<std::int64_t>(e), 7);
  }
  float const sm_scale = 1.0f / std::sqrt(static_cast<float>(fa_d));
  for (auto _ : state) {
    parallel_for(fa_bh * fa_seq, [&](pl::index_t begin, pl::index_t end) {
      std::vector<float> s(fa_seq);
      for (pl::index_t row = begin; row < end; ++row) {
        pl::index_t const b = row / fa_seq;
        float const* qr = &q[static_cast<std::size_t>(row * fa_d)];
        float m = -INFINITY, l = 0;
        for (pl::index_t j = 0; j < fa_seq; ++j) {
          float const* kr = &k[static_cast<std::size_t>((b * fa_seq + j) * fa_d)];
          float dot = 0;
          for (pl::index_t d = 0; d < fa_d; ++d) dot += qr[d] * kr[d];
          s[static_cast<std::size_t>(j)] = dot * sm_scale;
          m = std::max(m, dot * sm_scale);
        }
        float* orow = &o[static_cast<std::size_t>(row * fa_d)];
        std::fill(orow, orow + fa_d, 0.0f);
        for (pl::index_t j = 0; j < fa_seq; ++j) {
          float const p = std::exp(s[static_cast<std::size_t>(j)] - m);
          l += p;
          float const* vr = &v[static_cast<std::size_t>((b * fa_seq + j) * fa_d)];
          for (pl::index_t d = 0; d < fa_d; ++d) orow[d] += p * vr[d];
        }
        for (pl::index_t d = 0; d < fa_d; ++d) orow[d] /= l;
      }
    });
    benchmark::DoNotOptimize(o.data());
    benchmark::ClobberMemory();
  }
}

// ---------------------------------------------------------------------------------------
// grouped matmul (megablox gmm)

constexpr pl::index_t gm = 1024, gk = 512, gn = 512, gtm = 128, gtk = 128, gtn = 128;
std::vector<std::int32_t> const group_sizes{100, 0, 300, 37, 412, 175};  // sums to 1024

void BM_gmm_kernel(benchmark::State& state) {
  using I32 = std::int32_t;
  using Ints = pl::Array<I32, pl::dyn>;
  pl::Array<float, gm, gk> lhs;
  auto const num_groups = static_cast<pl::index_t>(group_sizes.size());
  pl::Array<float, pl::dyn, gk, gn> rhs(num_groups);
  fill(lhs, 8);
  fill(rhs, 9);
  // make_group_metadata
  std::vector<I32> offsets(group_sizes.size() + 1, 0), ids, tiles;
  std::partial_sum(group_sizes.begin(), group_sizes.end(), offsets.begin() + 1);
  for (std::size_t g = 0; g < group_sizes.size(); ++g)
    if (group_sizes[g] > 0)
      for (I32 t = static_cast<I32>(offsets[g] / gtm); t <= static_cast<I32>((offsets[g + 1] - 1) / gtm); ++t) {
        ids.push_back(static_cast<I32>(g));
        tiles.push_back(t);
      }
  auto const num_tiles = static_cast<pl::index_t>(ids.size());
  auto const group_offsets = Ints::from(offsets, num_groups + 1);
  auto const group_ids = Ints::from(ids, num_tiles);
  auto const m_tile_ids = Ints::from(tiles, num_tiles);
  auto const kernel = [](auto offs, auto gids, auto mtids, auto lhs_ref, auto rhs_ref, auto out, auto acc) {
    pl::index_t const grid_id = pl::program_id(1);
    pl::when(pl::program_id(2) == 0, [&] { acc[pl::ellipsis] = pl::zeros_like(acc); });
    acc[pl::ellipsis] += pl::dot(lhs_ref[pl::ellipsis], rhs_ref[pl::ellipsis], pl::preferred_element_type<float>);
    pl::when(pl::program_id(2) == pl::num_programs(2) - 1, [&] {
      I32 const g = gids[grid_id];
      auto const rows = pl::iota<I32, pl::shape<gtm, gtn>>(0) + mtids[grid_id] * static_cast<I32>(gtm);
      auto const mask = pl::eval(pl::logical_and(rows >= offs[g], rows < offs[g + 1]));
      out[pl::ellipsis] = pl::select(mask, acc[pl::ellipsis], out[pl::ellipsis]);
    });
  };
  auto const lhs_map = [](auto, auto t, auto kk, auto, auto, auto mt) { return pl::idx(mt[t], kk); };
  auto const rhs_map = [](auto n_i, auto t, auto kk, auto, auto gids, auto) { return pl::idx(gids[t], kk, n_i); };
  auto const out_map = [](auto n_i, auto t, auto, auto, auto, auto mt) { return pl::idx(mt[t], n_i); };
  auto const call = pl::pallas_call(
      kernel, pl::out_shape<pl::ShapeDtypeStruct<float, gm, gn>>, pltpu::num_scalar_prefetch<3>,
      pl::grid<gn / gtn, pl::dyn, gk / gtk>(num_tiles),
      pl::in_specs(pl::BlockSpec<gtm, gtk>(lhs_map), pl::BlockSpec<pl::squeezed, gtk, gtn>(rhs_map)),
      pl::out_specs(pl::BlockSpec<gtm, gtn>(out_map)),
      pl::scratch_shapes<pltpu::VMEM<float, gtm, gtn>>,
      pltpu::compiler_params(pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::ARBITRARY, pltpu::ARBITRARY>));
  for (auto _ : state) {
    auto o = call(group_offsets, group_ids, m_tile_ids, lhs, rhs);
    benchmark::DoNotOptimize(o.data());
  }
}

void BM_gmm_naive(benchmark::State& state) {
  std::vector<float> lhs(gm * gk), rhs(group_sizes.size() * gk * gn), out(gm * gn);
  for (std::size_t e = 0; e < lhs.size(); ++e) lhs[e] = hashed(static_cast<std::int64_t>(e), 8);
  for (std::size_t e = 0; e < rhs.size(); ++e) rhs[e] = hashed(static_cast<std::int64_t>(e), 9);
  std::vector<std::int32_t> group_of_row;
  for (std::size_t g = 0; g < group_sizes.size(); ++g) group_of_row.insert(group_of_row.end(), group_sizes[g], g);
  for (auto _ : state) {
    parallel_for(gm, [&](pl::index_t begin, pl::index_t end) {
      for (pl::index_t i = begin; i < end; ++i) {
        float* orow = &out[static_cast<std::size_t>(i * gn)];
        std::fill(orow, orow + gn, 0.0f);
        float const* w = &rhs[static_cast<std::size_t>(group_of_row[static_cast<std::size_t>(i)]) * gk * gn];
        for (pl::index_t p = 0; p < gk; ++p) {
          float const a = lhs[static_cast<std::size_t>(i * gk + p)];
          for (pl::index_t j = 0; j < gn; ++j) orow[j] += a * w[p * gn + j];
        }
      }
    });
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
}

}  // namespace

BENCHMARK(BM_softmax_kernel)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_softmax_naive)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_layer_norm_kernel)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_layer_norm_naive)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_flash_attention_kernel)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_flash_attention_naive)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_gmm_kernel)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_gmm_naive)->UseRealTime()->Unit(benchmark::kMillisecond);

static int const goals = [] {
  using pallas_bench::speed_goal;
  for (char const* name : {"softmax", "layer_norm", "flash_attention", "gmm"})
    speed_goal(std::string(name) + "_vs_naive", std::string("BM_") + name + "_kernel/real_time",
               std::string("BM_") + name + "_naive/real_time", ">=", 1.0);
  return 0;
}();

PALLAS_BENCHMARK_MAIN()
