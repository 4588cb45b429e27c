// The quickstart's pipelined add (`o[...] = x[...] + y[...]` on 128 x 128 blocks) on 64 MiB
// f32 arrays, against a plain fused loop (DESIGN.md §8, issue 15):
//   add_pipelined_vs_fused                    all TensorCores (v5p: 2) against the fused
//                                             loop on as many threads       goal >= 0.9
//   add_pipelined_1core_dmathread_vs_fused_1t one TensorCore with the DMA thread moving its
//                                             fetches, against the fused loop on one thread
//                                                                           goal >= 0.95
//   add_pipelined_1core_auto_vs_best_executor one TensorCore under the automatic executor
//                                             against the faster of the DMA thread and the
//                                             core, launches interleaved    goal >= 0.95
//   add_pipelined_2core_vs_1core              2 cores against 1 (each with the executor the
//                                             automatic rule picks)         goal >= 1.8
// and, as information: the 1-core pipeline with the copies on the core (PALLAS_DMA_ENGINE=
// inline), 256 x 512 blocks, and the same blocked copies written by hand (each row of a block
// copied with memcpy into the thread's own buffers, added there, copied back) on the same
// threads: what the copy engine's row prefetch and streaming stores are worth against the
// obvious copy loop (add_pipelined_*_vs_blocked_copies_*; measured 2.2-2.35x, 2 CPUs); and the
// thread executor's design written by hand (a helper thread and a core, no library):
// add_handwritten_dmathread_vs_fused_1t is that design's ceiling on this machine, and
// add_pipelined_1core_dmathread_vs_handwritten_dmathread what the library's engine costs over
// it; add_1core_dmathread_vs_inline_interleaved says which executor this machine favours now.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#if defined(__AVX__)
#  include <immintrin.h>
#endif

#include <pallas/pallas.hpp>

#include "goals.hpp"

namespace pl = pallas;
namespace pltpu = pallas::tpu;

namespace {

constexpr pl::index_t rows = 4096, cols = 4096;  // 64 MiB of f32 per array
using array = pl::Array<float, rows, cols>;

array const& x_array() {
  static array const x = array::full(2.0f);
  return x;
}
array const& y_array() {
  static array const y = array::full(3.0f);
  return y;
}

// Runs body(t) for t in [0, Threads) on fresh threads and joins them (the references pay
// for their threads as a launch does).
template <int Threads, class Body>
void on_threads(Body body) {
  std::vector<std::jthread> workers;
  for (int t = 0; t < Threads; ++t) workers.emplace_back([&body, t] { body(t); });
}

// Writes a b x b block from a contiguous buffer into o's rows with streaming stores (as the
// copy engine's write-back does); the caller fences once at the end.
template <pl::index_t b>
void stream_block_back(float* to, float const* from) {
  for (pl::index_t r = 0; r < b; ++r) {
#if defined(__AVX__)
    for (pl::index_t c = 0; c < b; c += 8) _mm256_stream_ps(to + r * cols + c, _mm256_load_ps(from + r * b + c));
#else
    std::memcpy(to + r * cols, from + r * b, b * sizeof(float));
#endif
  }
}

void stream_fence() {
#if defined(__AVX__)
  _mm_sfence();
#endif
}

// After a hand-written design's runs: its result must be x + y, and the bytes it streamed.
void check_and_count(benchmark::State& state, array const& o, char const* what) {
  for (pl::index_t k = 0; k < o.size(); ++k)
    if (o.data()[k] != 5.0f) {
      state.SkipWithError((std::string("the hand-written ") + what + " add is wrong").c_str());
      break;
    }
  state.SetBytesProcessed(state.iterations() * 3 * o.size() * static_cast<std::int64_t>(sizeof(float)));
}

template <int Threads>
void BM_add_fused(benchmark::State& state) {
  auto const& x = x_array();
  auto const& y = y_array();
  array o;
  for (auto _ : state) {
    on_threads<Threads>([&](int t) {
        pl::index_t const begin = x.size() / Threads * t, end = x.size() / Threads * (t + 1);
        float const* __restrict xs = x.data();
        float const* __restrict ys = y.data();
        float* __restrict os = o.data();
        for (pl::index_t k = begin; k < end; ++k) os[k] = xs[k] + ys[k];
      });
    benchmark::DoNotOptimize(o.data());
  }
  state.SetBytesProcessed(state.iterations() * 3 * x.size() * static_cast<std::int64_t>(sizeof(float)));
}

// The obvious hand-written blocked loop: each thread takes its share of the block rows (the
// core split), copies each 128 x 128 block of x and y into its own buffers row by row,
// adds them into a third and copies that back into o. Every row is 16 KiB from the next, so
// each block touches 128 pages; the copy engine prefetches rows ahead, this loop does not.
template <int Threads>
void BM_add_blocked_copies(benchmark::State& state) {
  constexpr pl::index_t bm = 128, bn = 128;
  auto const& x = x_array();
  auto const& y = y_array();
  array o;
  for (auto _ : state) {
    on_threads<Threads>([&](int t) {
        alignas(64) static thread_local float xb[bm * bn], yb[bm * bn], ob[bm * bn];
        pl::index_t const block_rows = rows / bm;
        for (pl::index_t i = block_rows / Threads * t; i < block_rows / Threads * (t + 1); ++i)
          for (pl::index_t j = 0; j < cols / bn; ++j) {
            for (pl::index_t r = 0; r < bm; ++r) {
              std::memcpy(xb + r * bn, x.data() + (i * bm + r) * cols + j * bn, bn * sizeof(float));
              std::memcpy(yb + r * bn, y.data() + (i * bm + r) * cols + j * bn, bn * sizeof(float));
            }
            for (pl::index_t k = 0; k < bm * bn; ++k) ob[k] = xb[k] + yb[k];
            for (pl::index_t r = 0; r < bm; ++r)
              std::memcpy(o.data() + (i * bm + r) * cols + j * bn, ob + r * bn, bn * sizeof(float));
          }
      });
    benchmark::DoNotOptimize(o.data());
  }
  state.SetBytesProcessed(state.iterations() * 3 * x.size() * static_cast<std::int64_t>(sizeof(float)));
}

// The inline executor's design written by hand, without the library: what add_pipelined_vs_fused
// is measured against to tell the design's ceiling on this machine from the library's cost.
// Each thread takes its share of the block rows (the core split) and, block by block, copies
// the rows of x and y into the next of two buffer sets (the pipeline's two slots) prefetching
// 6 rows ahead as the copy engine does, adds them, and writes the block back with streaming
// stores; nothing overlaps. One buffer set instead of two measured 10-15% faster here (half
// the cache footprint), but the eager and random DMA orders need the second slot.
template <int Threads>
void BM_add_handwritten_inline(benchmark::State& state) {
  constexpr pl::index_t b = 128, prefetch_rows = 6;
  auto const& x = x_array();
  auto const& y = y_array();
  array o;
  auto copy_in = [](float* to, float const* from) {
    for (pl::index_t r = 0; r < b; ++r) {
      if (r + prefetch_rows < b)
        for (pl::index_t c = 0; c < b; c += 16) __builtin_prefetch(from + (r + prefetch_rows) * cols + c);
      std::memcpy(to + r * b, from + r * cols, b * sizeof(float));
    }
  };
  for (auto _ : state) {
    on_threads<Threads>([&](int t) {
      struct buffers {
        alignas(64) float x[b * b], y[b * b], o[b * b];
      };
      auto const bufs = std::make_unique<buffers[]>(2);
      int slot = 0;
      pl::index_t const block_rows = rows / b;
      for (pl::index_t i = block_rows / Threads * t; i < block_rows / Threads * (t + 1); ++i)
        for (pl::index_t j = 0; j < cols / b; ++j) {
          pl::index_t const origin = i * b * cols + j * b;
          buffers* buf = &bufs[slot ^= 1];
          copy_in(buf->x, x.data() + origin);
          copy_in(buf->y, y.data() + origin);
          for (pl::index_t k = 0; k < b * b; ++k) buf->o[k] = buf->x[k] + buf->y[k];
          stream_block_back<b>(o.data() + origin, buf->o);
        }
      stream_fence();
    });
    benchmark::DoNotOptimize(o.data());
  }
  check_and_count(state, o, "inline");
}

// The thread executor's design written by hand, without the library: what its goal line is
// measured against to tell the design's ceiling on this machine from the library's overhead.
// A helper thread (the DMA thread) copies the next block's rows of x and y into the second
// pair of buffers, in chunks of 16 rows that the core also claims when it gets there first
// (help-first); the core adds into its own pair of output buffers and writes each block back
// with streaming stores one step later, as the pipeline's plan does.
void BM_add_handwritten_dmathread(benchmark::State& state) {
  constexpr pl::index_t b = 128, blocks_per_row = cols / b, blocks = rows / b * blocks_per_row;
  constexpr int chunk_rows = 16, chunks_per_operand = b / chunk_rows, chunks = 2 * chunks_per_operand;
  constexpr pl::index_t prefetch_rows = 6;
  auto const& x = x_array();
  auto const& y = y_array();
  array o;
  struct alignas(64) block_state {
    std::atomic<int> next{0}, done{0};
  };
  auto const state_of = std::make_unique<block_state[]>(blocks);
  struct buffers {
    alignas(64) float x[2][b * b], y[2][b * b], o[2][b * b];
  };
  auto const buf = std::make_unique<buffers>();
  // Chunk k of block n: rows [16 (k % 8), 16 (k % 8 + 1)) of x (k < 8) or y.
  auto move_chunk = [&](pl::index_t n, int k) {
    float const* src = (k < chunks_per_operand ? x : y).data();
    float* dst = k < chunks_per_operand ? buf->x[n % 2] : buf->y[n % 2];
    pl::index_t const first = (k % chunks_per_operand) * chunk_rows, last = first + chunk_rows;
    pl::index_t const origin = n / blocks_per_row * b * cols + n % blocks_per_row * b;
    for (pl::index_t r = first; r < last; ++r) {
      if (r + prefetch_rows < last)
        for (pl::index_t c = 0; c < b; c += 16) __builtin_prefetch(src + origin + (r + prefetch_rows) * cols + c);
      std::memcpy(dst + r * b, src + origin + r * cols, b * sizeof(float));
    }
  };
  auto claim = [&](pl::index_t n) {
    for (int k; (k = state_of[n].next.fetch_add(1, std::memory_order_acq_rel)) < chunks;) {
      move_chunk(n, k);
      state_of[n].done.fetch_add(1, std::memory_order_release);
    }
  };
  auto write_back = [&](pl::index_t n) {
    stream_block_back<b>(o.data() + n / blocks_per_row * b * cols + n % blocks_per_row * b, buf->o[n % 2]);
  };
  for (auto _ : state) {
    for (pl::index_t n = 0; n < blocks; ++n) {
      state_of[n].next.store(0, std::memory_order_relaxed);
      state_of[n].done.store(0, std::memory_order_relaxed);
    }
    std::atomic<pl::index_t> started{0};  // the blocks whose copies the core has started
    std::jthread dma([&](std::stop_token stop) {
      for (pl::index_t n = 0; n < blocks && !stop.stop_requested();) {
        if (n >= started.load(std::memory_order_acquire)) continue;  // spin: a step is ~10 us
        claim(n++);
      }
    });
    std::jthread core([&] {
      started.store(1, std::memory_order_release);
      for (pl::index_t n = 0; n < blocks; ++n) {
        if (n + 1 < blocks) started.store(n + 2, std::memory_order_release);  // fetch the next block
        claim(n);                                                            // help with this one
        while (state_of[n].done.load(std::memory_order_acquire) < chunks) {
        }
        float const* xs = buf->x[n % 2];
        float const* ys = buf->y[n % 2];
        float* os = buf->o[n % 2];
        for (pl::index_t k = 0; k < b * b; ++k) os[k] = xs[k] + ys[k];
        if (n > 0) write_back(n - 1);
      }
      write_back(blocks - 1);
      stream_fence();
    });
    core.join();
    dma.request_stop();
    benchmark::DoNotOptimize(o.data());
  }
  check_and_count(state, o, "DMA-thread");
}

// The quickstart's add as a pl::kernel with emit_pipeline over BM x BN blocks, on Cores.
template <int Cores, pl::index_t BM, pl::index_t BN>
auto make_add() {
  return pl::kernel(pl::like(x_array()),
                    pl::mesh<pltpu::TensorCoreMesh<"core", Cores>>)([](auto x_hbm, auto y_hbm, auto o_hbm) {
    constexpr auto ij = [](auto i, auto j) { return pl::idx(i, j); };
    pltpu::emit_pipeline(
        [](auto xv, auto yv, auto ov) { ov[pl::ellipsis] = xv[pl::ellipsis] + yv[pl::ellipsis]; },
        pl::grid<rows / BM, cols / BN>, pl::in_specs(pl::BlockSpec<BM, BN>(ij), pl::BlockSpec<BM, BN>(ij)),
        pl::out_specs(pl::BlockSpec<BM, BN>(ij)), pltpu::core_axis_name<"core">,
        pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::ARBITRARY>)(x_hbm, y_hbm, o_hbm);
  });
}

template <int Cores, pl::index_t BM, pl::index_t BN, pltpu::dma_executor Executor = pltpu::dma_executor::automatic>
void BM_add_pipelined(benchmark::State& state) {
  pltpu::scoped_dma_executor use(Executor);
  auto const& x = x_array();
  auto const& y = y_array();
  auto const add = make_add<Cores, BM, BN>();
  for (auto _ : state) {
    auto o = add(x, y);
    benchmark::DoNotOptimize(o.data());
  }
  state.SetBytesProcessed(state.iterations() * 3 * x.size() * static_cast<std::int64_t>(sizeof(float)));
}

// One core's pipelined add under the automatic executor, the DMA thread and the core,
// launch by launch in rotating order, so that all three see the same machine (on the VM
// this was built on, which executor is faster changed within minutes). Records each one's
// mean time per launch; the automatic one's launches start after its tuner's first choice
// (executor_tuner.hpp: the warm-up launch and the first probe of each).
void BM_add_1core_executors_interleaved(benchmark::State& state) {
  auto const& x = x_array();
  auto const& y = y_array();
  auto const add = make_add<1, 128, 128>();
  constexpr pltpu::dma_executor executors[] = {pltpu::dma_executor::automatic, pltpu::dma_executor::dma_thread,
                                               pltpu::dma_executor::on_core};
  auto launch = [&](pltpu::dma_executor e) {
    pltpu::scoped_dma_executor use(e);
    auto const start = std::chrono::steady_clock::now();
    auto o = add(x, y);
    benchmark::DoNotOptimize(o.data());
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  for (int k = 0; k < 5; ++k) launch(pltpu::dma_executor::automatic);
  double total[3] = {0, 0, 0};
  std::int64_t rounds = 0, auto_on_core = 0;
  for (auto _ : state) {
    for (int k = 0; k < 3; ++k) {
      int const e = static_cast<int>((rounds + k) % 3);
      total[e] += launch(executors[e]);
      if (e == 0) auto_on_core += pltpu::last_launch_dma_executor() == pltpu::dma_executor::on_core;
    }
    ++rounds;
  }
  // The automatic executor's launches that ran on the core (its probes, or its choice).
  state.counters["auto_on_core"] = static_cast<double>(auto_on_core) / static_cast<double>(rounds);
  pallas_bench::record_seconds("add_1core_auto", total[0] / static_cast<double>(rounds));
  pallas_bench::record_seconds("add_1core_dmathread", total[1] / static_cast<double>(rounds));
  pallas_bench::record_seconds("add_1core_inline", total[2] / static_cast<double>(rounds));
  pallas_bench::record_seconds("add_1core_best_fixed", std::min(total[1], total[2]) / static_cast<double>(rounds));
  state.SetBytesProcessed(state.iterations() * 3 * 3 * x.size() * static_cast<std::int64_t>(sizeof(float)));
}

}  // namespace

BENCHMARK(BM_add_fused<2>)->Name("BM_add_fused_2t")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_add_fused<1>)->Name("BM_add_fused_1t")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_add_blocked_copies<2>)->Name("BM_add_blocked_copies_2t")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_add_blocked_copies<1>)->Name("BM_add_blocked_copies_1t")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_add_handwritten_inline<2>)->Name("BM_add_handwritten_inline_2t")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_add_handwritten_inline<1>)->Name("BM_add_handwritten_inline_1t")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_add_handwritten_dmathread)->Name("BM_add_handwritten_dmathread")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_add_pipelined<2, 128, 128>)->Name("BM_add_pipelined_2core")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_add_pipelined<1, 128, 128>)->Name("BM_add_pipelined_1core")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_add_pipelined<1, 128, 128, pltpu::dma_executor::dma_thread>)
    ->Name("BM_add_pipelined_1core_dmathread")
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_add_pipelined<1, 128, 128, pltpu::dma_executor::on_core>)
    ->Name("BM_add_pipelined_1core_inline")
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_add_pipelined<2, 256, 512>)->Name("BM_add_pipelined_2core_256x512")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_add_1core_executors_interleaved)->Iterations(40)->UseRealTime()->Unit(benchmark::kMillisecond);

static int const goals = [] {
  using pallas_bench::speed_goal;
  speed_goal("add_pipelined_vs_fused", "BM_add_pipelined_2core/real_time", "BM_add_fused_2t/real_time", ">=", 0.9);
  speed_goal("add_pipelined_1core_dmathread_vs_fused_1t", "BM_add_pipelined_1core_dmathread/real_time",
             "BM_add_fused_1t/real_time", ">=", 0.95);
  speed_goal("add_pipelined_1core_auto_vs_best_executor", "add_1core_auto", "add_1core_best_fixed", ">=", 0.95);
  speed_goal("add_pipelined_2core_vs_1core", "BM_add_pipelined_2core/real_time", "BM_add_pipelined_1core/real_time",
             ">=", 1.8);
  using pallas_bench::speed_information;
  speed_information("add_blocked_copies_2t_vs_fused_2t", "BM_add_blocked_copies_2t/real_time",
                    "BM_add_fused_2t/real_time");
  speed_information("add_blocked_copies_1t_vs_fused_1t", "BM_add_blocked_copies_1t/real_time",
                    "BM_add_fused_1t/real_time");
  speed_information("add_pipelined_2core_vs_blocked_copies_2t", "BM_add_pipelined_2core/real_time",
                    "BM_add_blocked_copies_2t/real_time");
  speed_information("add_pipelined_1core_vs_blocked_copies_1t", "BM_add_pipelined_1core/real_time",
                    "BM_add_blocked_copies_1t/real_time");
  speed_information("add_handwritten_dmathread_vs_fused_1t", "BM_add_handwritten_dmathread/real_time",
                    "BM_add_fused_1t/real_time");
  speed_information("add_pipelined_1core_dmathread_vs_handwritten_dmathread",
                    "BM_add_pipelined_1core_dmathread/real_time",
                    "BM_add_handwritten_dmathread/real_time");
  speed_information("add_handwritten_inline_2t_vs_fused_2t", "BM_add_handwritten_inline_2t/real_time",
                    "BM_add_fused_2t/real_time");
  speed_information("add_pipelined_2core_vs_handwritten_inline_2t", "BM_add_pipelined_2core/real_time",
                    "BM_add_handwritten_inline_2t/real_time");
  speed_information("add_pipelined_1core_inline_vs_handwritten_inline_1t", "BM_add_pipelined_1core_inline/real_time",
                    "BM_add_handwritten_inline_1t/real_time");
  speed_information("add_1core_dmathread_vs_inline_interleaved", "add_1core_dmathread", "add_1core_inline");
  speed_information("add_fused_2t_vs_fused_1t", "BM_add_fused_2t/real_time", "BM_add_fused_1t/real_time");
  return 0;
}();

PALLAS_BENCHMARK_MAIN()
