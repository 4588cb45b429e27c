// The pipeline plan: static plans are compile-time constants, printed plans of known grids
// follow Pallas' schedule, and the builder agrees with a literal transcription of Pallas'
// per-step algorithm (pipeline.py's Scheduler) on random grids, maps and buffer counts.

#include <catch2/catch.hpp>

#include <array>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <pallas/array.hpp>
#include <pallas/block_spec.hpp>
#include <pallas/detail/pipeline/plan_builder.hpp>
#include <pallas/detail/pipeline/rules.hpp>
#include <pallas/detail/pipeline/static_rules.hpp>
#include <pallas/dot.hpp>
#include <pallas/expr/creation.hpp>
#include <pallas/grid.hpp>
#include <pallas/pallas_call.hpp>
#include <pallas/plan.hpp>
#include <pallas/program_id.hpp>
#include <pallas/tpu/pipeline.hpp>
#include <pallas/when.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;
using pl::index_t;

namespace {

// ---- The quickstart's pipelined add, 256 x 256 in 128 x 128 blocks, on the v5p's two cores.
constexpr auto ij = [](auto i, auto j) { return pl::idx(i, j); };
inline auto const quickstart_add = pltpu::emit_pipeline(
    [](auto x, auto y, auto o) { o[pl::ellipsis] = x[pl::ellipsis] + y[pl::ellipsis]; }, pl::grid<2, 2>,
    pl::in_specs(pl::BlockSpec<128, 128>(ij), pl::BlockSpec<128, 128>(ij)), pl::out_specs(pl::BlockSpec<128, 128>(ij)),
    pltpu::core_axis_name<"core">, pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::ARBITRARY>);
using hbm256 = decltype(pl::Array<float, 256, 256>().ref());
constexpr auto const& add_plan = pltpu::static_plan_of<decltype(quickstart_add), hbm256, hbm256, hbm256>;

constexpr int count_events(auto const& plan, std::size_t core, pl::event_kind kind, int operand) {
  int n = 0;
  for (auto const& e : plan.events_of(core)) n += e.kind == kind && e.operand == operand;
  return n;
}

static_assert(add_plan.num_cores == 2);
static_assert(add_plan.steps(0) == 2 && add_plan.steps(1) == 2);
static_assert(add_plan.point(1, 0) == std::array<index_t, 2>{1, 0});  // axis 0 is split
static_assert(add_plan.runs_of(0, 0).size() == 2 && add_plan.runs_of(1, 2).size() == 2);
static_assert(add_plan.block(add_plan.runs_of(1, 2)[1], 2)[0] == 1 && add_plan.block(add_plan.runs_of(1, 2)[1], 2)[1] == 1);
static_assert(add_plan.core(0).buffer_count[0] == 2);
static_assert(count_events(add_plan, 0, pl::event_kind::fetch_start, 0) == 2);
static_assert(count_events(add_plan, 1, pl::event_kind::writeback_start, 2) == 2);
static_assert(count_events(add_plan, 0, pl::event_kind::body, 0) == 2);
// The first event of each core is its first fetch, in the prologue.
static_assert(add_plan.events_of(0)[0].kind == pl::event_kind::fetch_start && add_plan.events_of(0)[0].step == -1);

// ---- The same add on one core (no core axis): a 2 x 2 grid, every operand's block new at
// every step, double-buffered.
inline auto const quickstart_add_1core = pltpu::emit_pipeline(
    [](auto x, auto y, auto o) { o[pl::ellipsis] = x[pl::ellipsis] + y[pl::ellipsis]; }, pl::grid<2, 2>,
    pl::in_specs(pl::BlockSpec<128, 128>(ij), pl::BlockSpec<128, 128>(ij)), pl::out_specs(pl::BlockSpec<128, 128>(ij)));
constexpr auto const& add_plan_1core = pltpu::static_plan_of<decltype(quickstart_add_1core), hbm256, hbm256, hbm256>;

static_assert(add_plan_1core.num_cores == 1 && add_plan_1core.steps(0) == 4);
static_assert(add_plan_1core.point(0, 0) == std::array<index_t, 2>{0, 0} &&
              add_plan_1core.point(0, 3) == std::array<index_t, 2>{1, 1});
static_assert(add_plan_1core.runs_of(0, 0).size() == 4 && add_plan_1core.runs_of(0, 2).size() == 4);
static_assert(add_plan_1core.core(0).buffer_count[0] == 2 && add_plan_1core.core(0).buffer_count[2] == 2);
static_assert(count_events(add_plan_1core, 0, pl::event_kind::fetch_start, 0) == 4 &&
              count_events(add_plan_1core, 0, pl::event_kind::fetch_start, 1) == 4);
static_assert(count_events(add_plan_1core, 0, pl::event_kind::fetch_start, 2) == 0);  // outputs are never loaded
static_assert(count_events(add_plan_1core, 0, pl::event_kind::writeback_start, 2) == 4);
static_assert(count_events(add_plan_1core, 0, pl::event_kind::body, 0) == 4);
// Two inputs fetched in the prologue (block (0, 0)), then at each step the next block.
static_assert(add_plan_1core.events_of(0)[1].kind == pl::event_kind::fetch_start && add_plan_1core.events_of(0)[1].operand == 1 &&
              add_plan_1core.events_of(0)[1].step == -1);

// ---- matmul.md's kernel through pallas_call, 1024^3 in 256 blocks, two cores.
inline auto const matmul = pl::pallas_call(
    [](auto x, auto y, auto z) {
      pl::when(pl::program_id(2) == 0, [&] { z[pl::ellipsis] = pl::zeros_like(z); });
      z[pl::ellipsis] += pl::dot(x[pl::ellipsis], y[pl::ellipsis]);
    },
    pl::out_shape<pl::ShapeDtypeStruct<float, 1024, 1024>>, pl::grid<4, 4, 4>,
    pl::in_specs(pl::BlockSpec<256, 256>([](auto i, auto, auto k) { return pl::idx(i, k); }),
                 pl::BlockSpec<256, 256>([](auto, auto j, auto k) { return pl::idx(k, j); })),
    pl::out_specs(pl::BlockSpec<256, 256>([](auto i, auto j, auto) { return pl::idx(i, j); })),
    pltpu::compiler_params(pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::PARALLEL, pltpu::ARBITRARY>),
    pltpu::num_cores<2>);
using matrix = pl::Array<float, 1024, 1024>;
constexpr auto const& matmul_plan = pl::static_plan_of<decltype(matmul), matrix, matrix>;

static_assert(matmul_plan.num_cores == 2 && matmul_plan.steps(0) == 32 && matmul_plan.steps(1) == 32);
static_assert(matmul_plan.point(1, 0) == std::array<index_t, 3>{2, 0, 0});  // linear split: rows 2, 3 on core 1
static_assert(matmul_plan.runs_of(0, 0).size() == 32);  // x's block changes every step
static_assert(matmul_plan.runs_of(0, 2).size() == 8);   // one output block per (i, j)
static_assert(count_events(matmul_plan, 1, pl::event_kind::writeback_start, 2) == 8);
static_assert(count_events(matmul_plan, 1, pl::event_kind::fetch_start, 1) == 32);
// The accumulator is revisited over k: one run of 4 steps per (i, j), never loaded from HBM.
static_assert(matmul_plan.runs_of(0, 2)[0].first_step == 0 && matmul_plan.runs_of(0, 2)[0].last_step == 3);
static_assert(matmul_plan.runs_of(1, 2)[7].first_step == 28 && matmul_plan.runs_of(1, 2)[7].last_step == 31);
static_assert(count_events(matmul_plan, 0, pl::event_kind::fetch_start, 2) == 0);
static_assert(count_events(matmul_plan, 0, pl::event_kind::writeback_wait, 2) == 8);

std::string printed(auto const& plan) {
  std::ostringstream out;
  out << plan;
  return out.str();
}

}  // namespace

TEST_CASE("plan: a revisited accumulator is written back when its block changes and at the end", "[plan]") {
  auto reduction = pltpu::emit_pipeline([](auto, auto) {}, pl::grid<2, 3>,
                                        pl::in_specs(pl::BlockSpec<8, 128>([](auto i, auto k) { return pl::idx(i, k); })),
                                        pl::out_specs(pl::BlockSpec<8, 128>([](auto i, auto) { return pl::idx(i, 0); })));
  pl::Array<float, 16, 384> x;
  pl::Array<float, 16, 128> o;
  CHECK(printed(pltpu::plan_of(reduction, x.ref(), o.ref())) ==
        "core 0: 6 steps, grid points (0, 0) .. (1, 2)\n"
        "  prologue: in_specs[0] fetch (0, 0) -> slot 0\n"
        "  step 0 (0, 0): in_specs[0] fetch (0, 1) -> slot 1; wait in_specs[0] fetch slot 0; body\n"
        "  step 1 (0, 1): in_specs[0] fetch (0, 2) -> slot 0; wait in_specs[0] fetch slot 1; body\n"
        "  step 2 (0, 2): in_specs[0] fetch (1, 0) -> slot 1; wait in_specs[0] fetch slot 0; body; out_specs[0] "
        "write-back slot 0 -> (0, 0)\n"
        "  step 3 (1, 0): in_specs[0] fetch (1, 1) -> slot 0; wait in_specs[0] fetch slot 1; body; wait out_specs[0] "
        "write-back slot 0\n"
        "  step 4 (1, 1): in_specs[0] fetch (1, 2) -> slot 1; wait in_specs[0] fetch slot 0; body\n"
        "  step 5 (1, 2): wait in_specs[0] fetch slot 1; body; out_specs[0] write-back slot 1 -> (1, 0)\n"
        "  epilogue: wait out_specs[0] write-back slot 1\n");
}

TEST_CASE("plan: Buffered(1) copies in and out around every body, synchronously", "[plan]") {
  auto single = pltpu::emit_pipeline(
      [](auto, auto) {}, pl::grid<2>,
      pl::in_specs(pl::BlockSpec<8, 128>([](auto i) { return pl::idx(0, i); }, pl::Buffered<1>)),
      pl::out_specs(pl::BlockSpec<8, 128>([](auto i) { return pl::idx(0, i); }, pl::Buffered<1>)));
  pl::Array<float, 8, 256> y, z;
  CHECK(printed(pltpu::plan_of(single, y.ref(), z.ref())) ==
        "core 0: 2 steps, grid points (0,) .. (1,)\n"
        "  step 0 (0,): in_specs[0] fetch (0, 0) -> slot 0; wait in_specs[0] fetch slot 0; body; out_specs[0] "
        "write-back slot 0 -> (0, 0); wait out_specs[0] write-back slot 0\n"
        "  step 1 (1,): in_specs[0] fetch (0, 1) -> slot 0; wait in_specs[0] fetch slot 0; body; out_specs[0] "
        "write-back slot 0 -> (0, 1); wait out_specs[0] write-back slot 0\n");
}

TEST_CASE("plan: a ragged grid (5,) over two cores gives them 3 and 2 steps", "[plan]") {
  auto ragged = pltpu::emit_pipeline([](auto, auto) {}, pl::grid<5>,
                                     pl::in_specs(pl::BlockSpec<8, 128>([](auto i) { return pl::idx(i, 0); })),
                                     pl::out_specs(pl::BlockSpec<8, 128>([](auto i) { return pl::idx(i, 0); })),
                                     pltpu::core_axis_name<"core">, pltpu::dimension_semantics<pltpu::PARALLEL>);
  pl::Array<float, 40, 128> a, b;
  CHECK(printed(pltpu::plan_of(ragged, 2, a.ref(), b.ref())) ==
        "core 0: 3 steps, grid points (0,) .. (2,)\n"
        "  prologue: in_specs[0] fetch (0, 0) -> slot 0\n"
        "  step 0 (0,): in_specs[0] fetch (1, 0) -> slot 1; wait in_specs[0] fetch slot 0; body; out_specs[0] "
        "write-back slot 0 -> (0, 0)\n"
        "  step 1 (1,): in_specs[0] fetch (2, 0) -> slot 0; wait in_specs[0] fetch slot 1; body; out_specs[0] "
        "write-back slot 1 -> (1, 0); wait out_specs[0] write-back slot 0\n"
        "  step 2 (2,): wait in_specs[0] fetch slot 0; body; out_specs[0] write-back slot 0 -> (2, 0); wait "
        "out_specs[0] write-back slot 1\n"
        "  epilogue: wait out_specs[0] write-back slot 0\n"
        "core 1: 2 steps, grid points (3,) .. (4,)\n"
        "  prologue: in_specs[0] fetch (3, 0) -> slot 0\n"
        "  step 0 (3,): in_specs[0] fetch (4, 0) -> slot 1; wait in_specs[0] fetch slot 0; body; out_specs[0] "
        "write-back slot 0 -> (3, 0)\n"
        "  step 1 (4,): wait in_specs[0] fetch slot 1; body; out_specs[0] write-back slot 1 -> (4, 0); wait "
        "out_specs[0] write-back slot 0\n"
        "  epilogue: wait out_specs[0] write-back slot 1\n");
}

TEST_CASE("plan: the compiler's plan equals the one built at run time", "[plan]") {
  pl::Array<float, 256, 256> x, y, o;
  auto const dynamic_add = pltpu::plan_of(quickstart_add, x.ref(), y.ref(), o.ref());
  CHECK(printed(dynamic_add) == printed(add_plan));
  REQUIRE(dynamic_add.events.size() == add_plan.events.size());
  for (std::size_t k = 0; k < add_plan.events.size(); ++k) CHECK(dynamic_add.events[k] == add_plan.events[k]);
  auto const dynamic_add_1core = pltpu::plan_of(quickstart_add_1core, x.ref(), y.ref(), o.ref());
  CHECK(printed(dynamic_add_1core) == printed(add_plan_1core));
  REQUIRE(dynamic_add_1core.events.size() == add_plan_1core.events.size());
  for (std::size_t k = 0; k < add_plan_1core.events.size(); ++k) CHECK(dynamic_add_1core.events[k] == add_plan_1core.events[k]);

  matrix a, b;
  auto const dynamic_matmul = pl::plan_of(matmul, a, b);
  CHECK(printed(dynamic_matmul) == printed(matmul_plan));
  REQUIRE(dynamic_matmul.events.size() == matmul_plan.events.size());
  for (std::size_t k = 0; k < matmul_plan.events.size(); ++k) CHECK(dynamic_matmul.events[k] == matmul_plan.events[k]);
}

// ---- The builder against a literal transcription of Pallas' schedule (pallas-semantics.md
// §2.14.3), with counters cin / win / cout / wout, on random configurations.

namespace {

struct ref_event {
  pl::event_kind kind;
  int operand;
  int slot;
  std::vector<index_t> block;
  int step;
  bool operator==(ref_event const&) const = default;
};

struct random_case {
  std::vector<pl::detail::operand_desc> ops;
  std::vector<std::vector<std::vector<index_t>>> blocks;  // [op][local step] -> block index
  int steps = 0;
};

// Pallas' per-step algorithm, one core.
std::vector<ref_event> pallas_schedule(random_case const& c, std::vector<int> const& bc,
                                       std::vector<std::vector<int>>& body_slots) {
  std::vector<ref_event> out;
  int const n = c.steps, ops = static_cast<int>(c.ops.size());
  auto blk = [&](int k, int s) { return c.blocks[static_cast<std::size_t>(k)][static_cast<std::size_t>(s)]; };
  std::vector<int> cin(ops), win(ops), cout(ops), wout(ops);
  auto input = [&](int k) { return !c.ops[static_cast<std::size_t>(k)].output; };
  int deepest = 2;
  for (int k = 0; k < ops; ++k)
    if (input(k)) deepest = std::max(deepest, bc[static_cast<std::size_t>(k)]);
  for (int t = 0; t + 1 < deepest && t < n; ++t)
    for (int k = 0; k < ops; ++k) {
      int const b = bc[static_cast<std::size_t>(k)];
      if (!input(k) || b < 2 || t + 1 >= b) continue;
      if (t == 0 || blk(k, t) != blk(k, t - 1)) out.push_back({pl::event_kind::fetch_start, k, cin[k]++ % b, blk(k, t), -1});
    }
  for (int s = 0; s < n; ++s) {
    for (int k = 0; k < ops; ++k) {
      int const b = bc[static_cast<std::size_t>(k)];
      if (!input(k)) continue;
      if (b == 1) {
        if (s == 0 || blk(k, s) != blk(k, s - 1)) out.push_back({pl::event_kind::fetch_start, k, cin[k]++ % b, blk(k, s), s});
      } else if (int const t = s + b - 1; t < n && blk(k, t - 1) != blk(k, t)) {
        out.push_back({pl::event_kind::fetch_start, k, cin[k]++ % b, blk(k, t), s});
      }
    }
    for (int k = 0; k < ops; ++k)
      if (input(k) && (s == 0 || blk(k, s) != blk(k, s - 1)))
        out.push_back({pl::event_kind::fetch_wait, k, win[k] % bc[static_cast<std::size_t>(k)], blk(k, s), s});
    for (int k = 0; k < ops; ++k)
      if (!input(k) && c.ops[static_cast<std::size_t>(k)].revisit_any && (s == 0 || blk(k, s) != blk(k, s - 1))) {
        out.push_back({pl::event_kind::fetch_start, k, cout[k] % bc[static_cast<std::size_t>(k)], blk(k, s), s});
        out.push_back({pl::event_kind::fetch_wait, k, cout[k] % bc[static_cast<std::size_t>(k)], blk(k, s), s});
      }
    std::vector<int> slots(static_cast<std::size_t>(ops));
    for (int k = 0; k < ops; ++k) slots[static_cast<std::size_t>(k)] = (input(k) ? win[k] : cout[k]) % bc[static_cast<std::size_t>(k)];
    body_slots.push_back(slots);
    out.push_back({pl::event_kind::body, 0, 0, {}, s});
    for (int k = 0; k < ops; ++k) {
      int const b = bc[static_cast<std::size_t>(k)];
      if (input(k) || !(s == n - 1 || blk(k, s) != blk(k, s + 1))) continue;
      out.push_back({pl::event_kind::writeback_start, k, cout[k] % b, blk(k, s), s});
      if (b == 1) {
        out.push_back({pl::event_kind::writeback_wait, k, cout[k] % b, blk(k, s), s});
        ++wout[k];
      }
      ++cout[k];
    }
    for (int k = 0; k < ops; ++k)
      if (!input(k) && bc[static_cast<std::size_t>(k)] > 1 && s > 0 && blk(k, s) != blk(k, s - 1)) {
        out.push_back({pl::event_kind::writeback_wait, k, wout[k] % bc[static_cast<std::size_t>(k)], blk(k, s - 1), s});
        ++wout[k];
      }
    for (int k = 0; k < ops; ++k)
      if (input(k) && (s == n - 1 || blk(k, s) != blk(k, s + 1))) ++win[k];
  }
  for (int k = 0; k < ops; ++k)
    while (!input(k) && bc[static_cast<std::size_t>(k)] > 1 && wout[k] < cout[k]) {
      out.push_back({pl::event_kind::writeback_wait, k, wout[k] % bc[static_cast<std::size_t>(k)], blk(k, n - 1), n});
      ++wout[k];
    }
  return out;
}

}  // namespace

TEST_CASE("plan: the builder follows Pallas' per-step schedule on random grids, maps and buffer counts", "[plan]") {
  std::mt19937 rng(20261201);
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int trial = 0; trial < 400; ++trial) {
    constexpr std::size_t N = 3;  // two inputs, one output
    random_case c;
    c.steps = uniform(1, 12);
    std::array<pl::detail::operand_desc, N> descs{};
    for (std::size_t k = 0; k < N; ++k) {
      auto& d = descs[k];
      d.output = k == 2;
      d.position = k == 2 ? 0 : static_cast<int>(k);
      d.rank = 2;
      d.values = 2;
      d.value_at = {0, 1};
      d.block = {8, 128};
      bool const whole = uniform(0, 4) == 0;
      d.array = whole ? std::array<index_t, pl::detail::max_block_rank>{8, 128} : std::array<index_t, pl::detail::max_block_rank>{64, 128};
      d.buffer_count = d.output ? uniform(0, 2) : uniform(0, 3);
      d.revisit_any = d.output && uniform(0, 3) == 0;
      // Blocks: runs of random lengths (1..4) of random rows.
      std::vector<std::vector<index_t>> blocks;
      while (static_cast<int>(blocks.size()) < c.steps) {
        index_t const row = whole ? 0 : uniform(0, 7);
        for (int len = uniform(1, 4); len > 0 && static_cast<int>(blocks.size()) < c.steps; --len) blocks.push_back({row, 0});
      }
      c.blocks.push_back(blocks);
      c.ops.push_back(d);
    }
    pl::detail::dynamic_plan<1, N> plan;
    pl::detail::plan_grid<1> grid{{c.steps}, {false}, {false}, pl::detail::split_policy::box, 1};
    pl::detail::build_plan(plan, grid, descs, [&](auto k, auto const& point, index_t* out) {
      auto const& b = c.blocks[decltype(k)::value][static_cast<std::size_t>(point[0])];
      out[0] = b[0];
      out[1] = b[1];
    });
    // The buffer counts the builder resolved (default: 2, or 1 for a whole, constant block).
    std::vector<int> bc;
    for (std::size_t k = 0; k < N; ++k) {
      bool constant = true;
      for (auto const& b : c.blocks[k]) constant &= b == c.blocks[k][0];
      int const expected = descs[k].buffer_count > 0 ? descs[k].buffer_count : (descs[k].whole_array() && constant ? 1 : 2);
      CHECK(plan.core(0).buffer_count[k] == expected);
      bc.push_back(expected);
    }
    std::vector<std::vector<int>> reference_slots;
    auto const reference = pallas_schedule(c, bc, reference_slots);
    std::vector<ref_event> built;
    std::vector<std::vector<int>> built_slots;
    std::vector<int> bound(N);
    for (auto const& e : plan.events_of(0)) {
      if (e.kind == pl::event_kind::bind) {
        bound[e.operand] = e.slot;
        continue;
      }
      if (e.kind == pl::event_kind::body) {
        built_slots.push_back(bound);
        built.push_back({e.kind, 0, 0, {}, e.step});
        continue;
      }
      auto const b = plan.block(plan.runs_of(0, e.operand)[static_cast<std::size_t>(e.index)], e.operand);
      built.push_back({e.kind, e.operand, e.slot, {b.begin(), b.end()}, e.step});
    }
    INFO("trial " << trial << ", " << c.steps << " steps\n" << printed(plan));
    REQUIRE(built.size() == reference.size());
    for (std::size_t k = 0; k < built.size(); ++k) {
      INFO("event " << k);
      CHECK(built[k] == reference[k]);
    }
    CHECK(built_slots == reference_slots);
  }
}

namespace {

// A 5 x 1000 grid (10000 steps x operands: past the plan the compiler computes; the rules
// walk it in chunks) whose last step breaks a rule: `Bad` says which (0: none).
template <int Bad>
auto large_pipeline() {
  return pltpu::emit_pipeline(
      [](auto, auto) {}, pl::grid<5, 1000>,
      pl::in_specs(pl::BlockSpec<8, 128>([](auto i, auto j) { return pl::idx(i, Bad == 1 && i == 4 && j == 999 ? 1000 : j); })),
      pl::out_specs(pl::BlockSpec<8, 128>([](auto i, auto j) { return pl::idx(Bad == 2 && i == 4 && j == 999 ? 0 : i, 0); })));
}

template <int Bad>
void check_rules_agree() {
  auto const p = large_pipeline<Bad>();
  pl::Array<float, 5 * 8, 1000 * 128> x;
  pl::Array<float, 5 * 8, 128> o;
  using E = typename decltype(p)::template engine_type<decltype(x.ref()), decltype(o.ref())>;
  static_assert(!pl::detail::plan_is_static_v<E> && E::rules_are_static);
  constexpr auto at_compile_time = pl::detail::static_rule_violation<E, true>();
  auto const at_run_time = pl::detail::check_grid_rules(pltpu::plan_of(p, x.ref(), o.ref()), -1);
  CHECK(at_compile_time.rule == at_run_time.rule);
  CHECK(at_compile_time.operand == at_run_time.operand);
  CHECK(at_compile_time.core == at_run_time.core);
  CHECK(at_compile_time.run == at_run_time.run);
  CHECK(at_compile_time.grid_step == at_run_time.grid_step);
  CHECK(at_compile_time.dim == at_run_time.dim);
  CHECK(at_compile_time.start == at_run_time.start);
  // Independently: the last step, 4999, breaks it, and nothing before.
  if constexpr (Bad == 0) {
    CHECK(!at_run_time.found());
  } else {
    CHECK(at_run_time.grid_step == 4999);
    CHECK(at_run_time.operand == (Bad == 1 ? 0 : 1));
    CHECK(at_run_time.rule == (Bad == 1 ? pl::detail::grid_rule::block_out_of_range : pl::detail::grid_rule::output_revisit));
    if constexpr (Bad == 1) CHECK(at_run_time.start == 1000 * 128);
  }
}

}  // namespace

TEST_CASE("plan: the compiler's chunked walk of a large grid finds what the rules find over the plan", "[plan][rules]") {
  check_rules_agree<0>();
  check_rules_agree<1>();
  check_rules_agree<2>();
}
