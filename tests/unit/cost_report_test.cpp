// pltpu::last_launch_report(): the bytes each operand moved and the FLOPs of the products,
// against numbers computed here from the Pallas rules (closed forms, and for multi-core
// splits a walk of each core's grid points that applies the fetch rule), never from the
// library; the estimate from the chip's facts; a pl::CostEstimate compared.

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include <pallas/pallas.hpp>
#include <pallas/pallas_call.hpp>
#include <pallas/tpu/pipeline.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;
using pl::index_t;

namespace {

constexpr pltpu::TpuInfo chip = pltpu::get_tpu_info();

struct matmul_kernel {
  void operator()(auto x_ref, auto y_ref, auto z_ref, auto acc_ref) const {
    pl::when(pl::program_id(2) == 0, [&] { acc_ref[pl::ellipsis] = pl::zeros_like(acc_ref); });
    acc_ref[pl::ellipsis] += pl::dot(x_ref[pl::ellipsis], y_ref[pl::ellipsis]);
    pl::when(pl::program_id(2) == pl::num_programs(2) - 1, [&] { z_ref[pl::ellipsis] = acc_ref[pl::ellipsis]; });
  }
};

template <index_t bm, index_t bk, index_t bn, int Cores, index_t M, index_t K, index_t N, class... Extra>
pl::Array<float, M, N> matmul(pl::Array<float, M, K> const& x, pl::Array<float, K, N> const& y, Extra... extra) {
  constexpr index_t gm = (M + bm - 1) / bm, gn = (N + bn - 1) / bn, gk = K / bk;
  return pl::pallas_call(matmul_kernel{}, pl::out_shape<pl::ShapeDtypeStruct<float, M, N>>, pl::grid<gm, gn, gk>,
                         pl::in_specs(pl::BlockSpec<bm, bk>([](auto i, auto, auto kk) { return pl::idx(i, kk); }),
                                      pl::BlockSpec<bk, bn>([](auto, auto j, auto kk) { return pl::idx(kk, j); })),
                         pl::out_specs(pl::BlockSpec<bm, bn>([](auto i, auto j, auto) { return pl::idx(i, j); })),
                         pl::scratch_shapes<pltpu::VMEM<float, bm, bn>>, pltpu::num_cores<Cores>,
                         pltpu::compiler_params(pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::PARALLEL, pltpu::ARBITRARY>),
                         extra...)(x, y);
}

// Small integers: every f32 product and sum is exact.
template <index_t R, index_t C>
pl::Array<float, R, C> small_ints(int salt) {
  return pl::Array<float, R, C>::generate(
      [salt](auto i, auto j) { return static_cast<float>((i * 7 + j * 3 + salt) % 9) - 4; });
}

template <index_t M, index_t K, index_t N>
bool equals_loop(pl::Array<float, M, K> const& x, pl::Array<float, K, N> const& y, pl::Array<float, M, N> const& z) {
  // Through raw pointers: operator()'s bounds checks made this loop most of the test's time.
  float const* xp = x.data();
  float const* yp = y.data();
  float const* zp = z.data();
  for (index_t i = 0; i < M; ++i)
    for (index_t j = 0; j < N; ++j) {
      float s = 0;
      for (index_t p = 0; p < K; ++p) s += xp[i * K + p] * yp[p * N + j];
      if (s != zp[i * N + j]) return false;
    }
  return true;
}

// What the rules say one core of a pallas_call matmul moves, per operand, and its FLOPs.
struct core_expect {
  std::int64_t x_bytes = 0, x_copies = 0, y_bytes = 0, y_copies = 0, z_bytes = 0, z_copies = 0, flops = 0;
  std::int64_t hbm() const { return x_bytes + y_bytes + z_bytes; }
};

// The part of a block of `b` elements at block index `i` inside an extent `e`.
constexpr std::int64_t clip(index_t i, index_t b, index_t e) { return std::min(b, e - i * b); }

// pallas_call's linear split: core c runs parallel points [c * ceil(P / cores), ...) of the
// flattened (i, j), each with every k in order. An input is fetched when its block index
// differs from the core's previous step (or at the core's first step); the output is written
// once per run of equal block indices.
template <index_t M, index_t K, index_t N, index_t bm, index_t bk, index_t bn>
std::vector<core_expect> walk_matmul(int cores) {
  constexpr index_t gm = (M + bm - 1) / bm, gn = (N + bn - 1) / bn, gk = K / bk;
  index_t const points = gm * gn, chunk = (points + cores - 1) / cores;
  std::vector<core_expect> out(static_cast<std::size_t>(cores));
  for (int c = 0; c < cores; ++c) {
    auto& e = out[static_cast<std::size_t>(c)];
    std::array<index_t, 2> px{-1, -1}, py{-1, -1}, pz{-1, -1};
    for (index_t p = c * chunk; p < std::min(points, (c + 1) * chunk); ++p)
      for (index_t kk = 0; kk < gk; ++kk) {
        index_t const i = p / gn, j = p % gn;
        if (std::array<index_t, 2>{i, kk} != px) e.x_bytes += clip(i, bm, M) * bk * 4, ++e.x_copies, px = {i, kk};
        if (std::array<index_t, 2>{kk, j} != py) e.y_bytes += bk * clip(j, bn, N) * 4, ++e.y_copies, py = {kk, j};
        if (std::array<index_t, 2>{i, j} != pz) e.z_bytes += clip(i, bm, M) * clip(j, bn, N) * 4, ++e.z_copies, pz = {i, j};
        e.flops += 2 * bm * bn * bk;  // the product runs on whole blocks
      }
  }
  return out;
}

std::int64_t sum(std::vector<core_expect> const& v, std::int64_t core_expect::*field) {
  std::int64_t s = 0;
  for (auto const& e : v) s += e.*field;
  return s;
}

// The estimate from the chip's facts: per core max(HBM bytes / bandwidth, FLOPs / (bf16
// rate / 6)) (every product here has f32 operands), the slowest core's.
double expected_seconds(std::vector<core_expect> const& v) {
  double t = 0;
  for (auto const& e : v)
    t = std::max({t, static_cast<double>(e.hbm()) / chip.mem_bw_bytes_per_second,
                  static_cast<double>(e.flops) / (chip.bf16_ops_per_second / 6)});
  return t;
}

template <index_t M, index_t K, index_t N, index_t bm, index_t bk, index_t bn, int Cores>
void check_matmul() {
  CAPTURE(M, K, N, bm, bk, bn, Cores);
  auto const x = small_ints<M, K>(1);
  auto const y = small_ints<K, N>(2);
  auto const z = matmul<bm, bk, bn, Cores>(x, y);
  auto const r = pltpu::last_launch_report();
  REQUIRE(equals_loop(x, y, z));
  auto const expect = walk_matmul<M, K, N, bm, bk, bn>(Cores);
  REQUIRE(r.valid);
  CHECK(r.launcher == "pl::pallas_call");
  CHECK(r.num_cores == Cores);
  REQUIRE(r.operands.size() == 3);
  auto const* xr = r.operand("in_specs[0]");
  auto const* yr = r.operand("in_specs[1]");
  auto const* zr = r.operand("out_specs[0]");
  REQUIRE(xr);
  REQUIRE(yr);
  REQUIRE(zr);
  CHECK(xr->src == pl::memory_space::hbm);
  CHECK(xr->dst == pl::memory_space::vmem);
  CHECK(zr->src == pl::memory_space::vmem);
  CHECK(zr->dst == pl::memory_space::hbm);
  CHECK(xr->bytes == sum(expect, &core_expect::x_bytes));
  CHECK(xr->copies == sum(expect, &core_expect::x_copies));
  CHECK(yr->bytes == sum(expect, &core_expect::y_bytes));
  CHECK(yr->copies == sum(expect, &core_expect::y_copies));
  CHECK(zr->bytes == sum(expect, &core_expect::z_bytes));
  CHECK(zr->copies == sum(expect, &core_expect::z_copies));
  CHECK(r.hbm_bytes == xr->bytes + yr->bytes + zr->bytes);
  constexpr index_t gm = (M + bm - 1) / bm, gn = (N + bn - 1) / bn, gk = K / bk;
  CHECK(r.flops == 2 * gm * gn * gk * bm * bn * bk);
  CHECK(r.f32_flops == r.flops);
  CHECK(r.dots == gm * gn * gk);
  CHECK(r.estimated_seconds == Approx(expected_seconds(expect)).epsilon(1e-12));
  CHECK(r.arithmetic_intensity == Approx(static_cast<double>(r.flops) / static_cast<double>(r.hbm_bytes)));
  if constexpr (Cores == 1) {
    // The closed forms on one core: x is fetched once per (i, k) visit, i.e. the whole
    // array gn times, unless gk == 1 keeps its block for every j; y the whole array gm
    // times, unless the grid's last two axes are both 1; z written once, whole.
    CHECK(xr->bytes == (gk == 1 ? M * K * 4 : gn * M * K * 4));
    CHECK(yr->bytes == (gn == 1 && gk == 1 ? K * N * 4 : gm * K * N * 4));
    CHECK(zr->bytes == M * N * 4);
    CHECK(zr->copies == gm * gn);
    double const memory = static_cast<double>(r.hbm_bytes) / chip.mem_bw_bytes_per_second;
    double const compute = static_cast<double>(r.flops) / (chip.bf16_ops_per_second / 6);
    CHECK(r.memory_seconds == Approx(memory));
    CHECK(r.compute_seconds == Approx(compute));
    CHECK(r.bound == (memory >= compute ? pltpu::Bound::hbm : pltpu::Bound::mxu));
  }
}

}  // namespace

TEST_CASE("cost report: the matmul's bytes and FLOPs per block size and core count", "[cost]") {
  check_matmul<256, 256, 256, 128, 128, 128, 1>();  // every fetch changes
  check_matmul<256, 256, 256, 128, 128, 128, 2>();
  check_matmul<256, 256, 256, 128, 128, 128, 4>();
  check_matmul<200, 256, 384, 128, 256, 256, 1>();  // ragged M and N; gk == 1 keeps x's block over j
  check_matmul<200, 256, 384, 128, 256, 256, 2>();
  check_matmul<200, 256, 384, 128, 256, 256, 4>();  // 4 parallel points, one per core
  check_matmul<128, 512, 128, 128, 128, 128, 1>();  // size-1 parallel axes: one point, k revisits nothing
  check_matmul<128, 512, 128, 128, 128, 128, 2>();  // core 1 has no step
  check_matmul<8, 128, 128, 8, 128, 128, 1>();      // one step: everything once
}

TEST_CASE("cost report: the counts are the same under every DMA order and executor", "[cost]") {
  auto const x = small_ints<256, 256>(3);
  auto const y = small_ints<256, 256>(4);
  auto const expect = walk_matmul<256, 256, 256, 128, 128, 128>(2);
  auto const run = [&] {
    auto const z = matmul<128, 128, 128, 2>(x, y);
    REQUIRE(equals_loop(x, y, z));
    auto const r = pltpu::last_launch_report();
    CHECK(r.operand("in_specs[0]")->bytes == sum(expect, &core_expect::x_bytes));
    CHECK(r.operand("in_specs[1]")->copies == sum(expect, &core_expect::y_copies));
    CHECK(r.operand("out_specs[0]")->bytes == sum(expect, &core_expect::z_bytes));
    CHECK(r.flops == sum(expect, &core_expect::flops));
  };
  for (auto executor : {pltpu::dma_executor::on_core, pltpu::dma_executor::dma_thread, pltpu::dma_executor::automatic}) {
    pltpu::scoped_dma_executor e(executor);
    run();
  }
  {
    pltpu::scoped_dma_schedule s({pltpu::dma_execution_mode::eager});
    run();
  }
  for (std::uint64_t seed : {1u, 7u}) {
    pltpu::scoped_dma_schedule s({pltpu::dma_execution_mode::random, seed});
    run();
  }
}

TEST_CASE("cost report: stored in the trace with its launch", "[cost][trace]") {
  auto const x = small_ints<256, 256>(8);
  auto const y = small_ints<256, 256>(9);
  pl::trace::clear();
  pl::trace::start();
  auto const z = matmul<128, 128, 128, 1>(x, y);
  pl::trace::stop();
  REQUIRE(equals_loop(x, y, z));
  auto const r = pltpu::last_launch_report();
  auto const launches = pl::trace::launches();
  REQUIRE(launches.size() == 1);
  int found = 0;
  for (auto const& e : pl::trace::events()) {
    if (e.category != "cost") continue;
    ++found;
    CHECK(e.launch == launches[0].id);
    CHECK(e.core == 0);
    // One launch of a 256^3 matmul in 128^3 blocks on one core: x fetched gn = 2 times
    // whole, y gm = 2 times whole, z written once: (2 + 2 + 1) x 256 KiB.
    CHECK(e.bytes == 5 * 256 * 256 * 4);
    CHECK(e.bytes == r.hbm_bytes);
    CHECK(e.operand == pltpu::to_string(r));
  }
  CHECK(found == 1);
  pl::trace::clear();
}

TEST_CASE("cost report: a pl::CostEstimate is kept and compared with the counts", "[cost]") {
  constexpr index_t M = 256, K = 256, N = 256;
  auto const x = small_ints<M, K>(5);
  auto const y = small_ints<K, N>(6);
  // What a user writes: every operand read or written once.
  pl::CostEstimate const estimate{.flops = 2 * M * N * K, .transcendentals = 0, .bytes_accessed = (M * K + K * N + M * N) * 4};
  auto const z = matmul<128, 128, 128, 1>(x, y, estimate);
  REQUIRE(equals_loop(x, y, z));
  auto const r = pltpu::last_launch_report();
  REQUIRE(r.estimate);
  CHECK(*r.estimate == estimate);
  // grid (2, 2, 2): x and y are each fetched twice over, z written once.
  std::int64_t const measured = (2 * M * K + 2 * K * N + M * N) * 4;
  CHECK(r.hbm_bytes == measured);
  REQUIRE(r.flops_ratio());
  CHECK(*r.flops_ratio() == Approx(1.0));
  REQUIRE(r.bytes_ratio());
  CHECK(*r.bytes_ratio() == Approx(5.0 / 3.0));
  std::string const text = pltpu::to_string(r);
  CHECK(text.find("CostEstimate") != std::string::npos);
  CHECK(text.find("in_specs[1]") != std::string::npos);
  CHECK(text.find(std::string(pltpu::name(r.bound))) != std::string::npos);
  // The next launch without an estimate reports none.
  (void)matmul<128, 128, 128, 1>(x, y);
  CHECK_FALSE(pltpu::last_launch_report().estimate);
  CHECK_FALSE(pltpu::last_launch_report().bytes_ratio());
}

namespace {

template <int Cores>
void check_pipelined_add() {
  CAPTURE(Cores);
  constexpr index_t M = 512, N = 256;
  auto const x = small_ints<M, N>(7);
  auto const y = small_ints<M, N>(8);
  auto kernel = pl::kernel(pl::like(x), pl::mesh<pltpu::TensorCoreMesh<"core", Cores>>)([](auto x_hbm, auto y_hbm, auto o_hbm) {
    pltpu::emit_pipeline([](auto a, auto b, auto o) { o[pl::ellipsis] = a[pl::ellipsis] + b[pl::ellipsis]; },
                         pl::grid<M / 128, N / 128>,
                         pl::in_specs(pl::BlockSpec<128, 128>([](auto i, auto j) { return pl::idx(i, j); }),
                                      pl::BlockSpec<128, 128>([](auto i, auto j) { return pl::idx(i, j); })),
                         pl::out_specs(pl::BlockSpec<128, 128>([](auto i, auto j) { return pl::idx(i, j); })),
                         pltpu::core_axis_name<"core">,
                         pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::ARBITRARY>)(x_hbm, y_hbm, o_hbm);
  });
  auto const o = kernel(x, y);
  bool same = true;  // one assertion for the whole array: per-element ones cost seconds under the sanitizers
  for (index_t i = 0; i < M; ++i)
    for (index_t j = 0; j < N; ++j) same &= o(i, j) == x(i, j) + y(i, j);
  REQUIRE(same);
  auto const r = pltpu::last_launch_report();
  CHECK(r.launcher == "pl::kernel");
  CHECK(r.num_cores == Cores);
  REQUIRE(r.operands.size() == 3);
  // Every block is visited once (no index repeats): each operand moves its whole array.
  constexpr std::int64_t block = 128 * 128 * 4, blocks = (M / 128) * (N / 128);
  for (char const* name : {"in_specs[0]", "in_specs[1]", "out_specs[0]"}) {
    auto const* row = r.operand(name);
    REQUIRE(row);
    CHECK(row->bytes == blocks * block);
    CHECK(row->copies == blocks);
  }
  CHECK(r.hbm_bytes == 3 * blocks * block);
  CHECK(r.flops == 0);
  CHECK(r.bound == pltpu::Bound::hbm);
  CHECK(r.arithmetic_intensity == 0);
  // The first axis (4) splits evenly: each core moves 3 operands x 8 / Cores blocks.
  CHECK(r.estimated_seconds == Approx(3.0 * (blocks / Cores) * block / chip.mem_bw_bytes_per_second));
}

// Per core: its 8 rows of x (bf16) by sync_copy, the whole w (bf16) by make_async_copy,
// x copied once more inside VMEM (listed, no HBM traffic), o = x @ w in f32, written back
// by sync_copy.
template <int Cores>
void check_hand_copies() {
  CAPTURE(Cores);
  auto const x = pl::Array<pl::bfloat16, 8 * Cores, 128>::generate(
      [](auto i, auto j) { return pl::bfloat16(static_cast<float>((i + 2 * j) % 5) - 2); });
  auto const w = pl::Array<pl::bfloat16, 128, 128>::generate(
      [](auto i, auto j) { return pl::bfloat16(static_cast<float>((3 * i + j) % 7) - 3); });
  auto kernel = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 8 * Cores, 128>>,
                           pl::mesh<pltpu::TensorCoreMesh<"core", Cores>>,
                           pl::scratch_types<pltpu::VMEM<pl::bfloat16, 8, 128>, pltpu::VMEM<pl::bfloat16, 8, 128>,
                                             pltpu::VMEM<pl::bfloat16, 128, 128>, pltpu::VMEM<float, 8, 128>,
                                             pltpu::SemaphoreType::DMA<>>)(
      [](auto x_hbm, auto w_hbm, auto o_hbm, auto x_vmem, auto x2_vmem, auto w_vmem, auto o_vmem, auto sem) {
        auto const i = pl::axis_index<"core">();
        auto w_copy = pltpu::make_async_copy(w_hbm, w_vmem, sem);
        w_copy.start();
        pltpu::sync_copy(x_hbm.at(pl::ds<8>(i * 8)), x_vmem);
        pltpu::sync_copy(x_vmem, x2_vmem);
        w_copy.wait();
        o_vmem[pl::ellipsis] = pl::dot(x2_vmem[pl::ellipsis], w_vmem[pl::ellipsis], pl::preferred_element_type<float>);
        pltpu::sync_copy(o_vmem, o_hbm.at(pl::ds<8>(i * 8)));
      });
  auto const o = kernel(x, w);
  bool same = true;
  for (index_t i = 0; i < 8 * Cores; ++i)
    for (index_t j = 0; j < 128; ++j) {
      float s = 0;
      for (index_t p = 0; p < 128; ++p) s += static_cast<float>(x(i, p)) * static_cast<float>(w(p, j));
      same &= o(i, j) == s;
    }
  REQUIRE(same);
  auto const r = pltpu::last_launch_report();
  REQUIRE(r.operands.size() == 4);
  auto find = [&](std::string_view name, pl::memory_space src, pl::memory_space dst) -> pltpu::OperandTraffic const* {
    for (auto const& op : r.operands)
      if (op.name == name && op.src == src && op.dst == dst) return &op;
    return nullptr;
  };
  // The kernel's refs are HBM refs.
  auto const* x_in = find("sync_copy", pl::memory_space::hbm, pl::memory_space::vmem);
  auto const* w_in = find("make_async_copy", pl::memory_space::hbm, pl::memory_space::vmem);
  auto const* o_out = find("sync_copy", pl::memory_space::vmem, pl::memory_space::hbm);
  REQUIRE(x_in);
  REQUIRE(w_in);
  REQUIRE(o_out);
  auto const* local = find("sync_copy", pl::memory_space::vmem, pl::memory_space::vmem);
  REQUIRE(local);
  CHECK(local->copies == Cores);
  CHECK(local->bytes == 8 * Cores * 128 * 2);
  CHECK(local->hbm_bytes == 0);
  CHECK(x_in->copies == Cores);
  CHECK(x_in->bytes == 8 * Cores * 128 * 2);
  CHECK(w_in->copies == Cores);
  CHECK(w_in->bytes == Cores * 128 * 128 * 2);
  CHECK(o_out->copies == Cores);
  CHECK(o_out->bytes == 8 * Cores * 128 * 4);
  CHECK(r.hbm_bytes == x_in->bytes + w_in->bytes + o_out->bytes);
  CHECK(r.flops == Cores * 2 * 8 * 128 * 128);
  CHECK(r.f32_flops == 0);  // bf16 operands: the MXU's bf16 rate
  CHECK(r.dots == Cores);
  std::int64_t const core_bytes = 8 * 128 * 2 + 128 * 128 * 2 + 8 * 128 * 4;
  double const memory = static_cast<double>(core_bytes) / chip.mem_bw_bytes_per_second;
  double const compute = 2.0 * 8 * 128 * 128 / chip.bf16_ops_per_second;
  CHECK(r.estimated_seconds == Approx(std::max(memory, compute)));
  CHECK(r.bound == (memory >= compute ? pltpu::Bound::hbm : pltpu::Bound::mxu));
}

}  // namespace

TEST_CASE("cost report: the pipelined add on 1, 2 and 4 cores", "[cost]") {
  check_pipelined_add<1>();
  check_pipelined_add<2>();
  check_pipelined_add<4>();
}

TEST_CASE("cost report: a pl::kernel's copies by hand, grouped by kind and direction", "[cost]") {
  check_hand_copies<1>();
  check_hand_copies<2>();
  check_hand_copies<4>();
}

namespace {

// Output block i is x's block visit[i]: visit = {2, 2, 0, 1} fetches x's block 2 once for
// the first two steps (the index does not change), and every core copies the 16 bytes of
// visit to its SMEM.
template <int Cores>
void check_scalar_prefetch() {
  CAPTURE(Cores);
  pl::Array<std::int32_t, 4> const visit{2, 2, 0, 1};
  auto const x = small_ints<4 * 8, 128>(9);
  auto map = [](auto i, auto v) { return pl::idx(v[i], 0); };
  auto call = pl::pallas_call([](auto, auto x_ref, auto o_ref) { o_ref[pl::ellipsis] = x_ref[pl::ellipsis]; },
                              pl::out_shape<pl::ShapeDtypeStruct<float, 4 * 8, 128>>, pl::grid<4>,
                              pltpu::num_scalar_prefetch<1>, pltpu::num_cores<Cores>,
                              pl::in_specs(pl::BlockSpec<8, 128>(map)),
                              pl::out_specs(pl::BlockSpec<8, 128>([](auto i, auto) { return pl::idx(i, 0); })),
                              pltpu::dimension_semantics<pltpu::PARALLEL>);
  auto const o = call(visit, x);
  bool same = true;
  for (index_t i = 0; i < 4 * 8; ++i)
    for (index_t j = 0; j < 128; ++j) same &= o(i, j) == x(visit(i / 8) * 8 + i % 8, j);
  REQUIRE(same);
  auto const r = pltpu::last_launch_report();
  REQUIRE(r.operands.size() == 3);
  auto const* pf = r.operand("scalar_prefetch");
  REQUIRE(pf);
  CHECK(pf->src == pl::memory_space::hbm);
  CHECK(pf->dst == pl::memory_space::smem);
  CHECK(pf->copies == Cores);
  CHECK(pf->bytes == Cores * 4 * 4);
  // One core: 2, 2, 0, 1 -> three fetches. Two cores: {2, 2} and {0, 1} -> one and two.
  CHECK(r.operand("in_specs[0]")->copies == 3);
  CHECK(r.operand("in_specs[0]")->bytes == 3 * 8 * 128 * 4);
  CHECK(r.operand("out_specs[0]")->copies == 4);
  CHECK(r.hbm_bytes == Cores * 16 + 3 * 8 * 128 * 4 + 4 * 8 * 128 * 4);
}

}  // namespace

TEST_CASE("cost report: scalar-prefetch arguments and a skipped fetch", "[cost]") {
  check_scalar_prefetch<1>();
  check_scalar_prefetch<2>();
}

TEST_CASE("cost report: a thread that launched nothing has no report", "[cost]") {
  bool valid = true;
  std::string text;
  std::thread([&] {
    valid = pltpu::last_launch_report().valid;
    text = pltpu::to_string(pltpu::last_launch_report());
  }).join();
  CHECK_FALSE(valid);
  CHECK(text.find("no launch") != std::string::npos);
}
