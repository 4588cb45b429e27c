// Pallas pipeline behaviours a ported kernel meets, each against a naive loop or a value
// from Pallas' docs: ARBITRARY axes before PARALLEL ones (emit_pipeline), VMEM operands viewed
// in place, num_programs per core, Buffered(n, use_lookahead), Element padding,
// BoundedSlice dims, SMEM BlockSpecs, and program_id / num_programs inside index maps.
#include <pallas/pallas.hpp>

#include <climits>
#include <cmath>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;
using pl::index_t;

namespace {

template <int Cores>
using mesh = pltpu::TensorCoreMesh<"core", Cores>;

template <class T, index_t... D>
pl::Array<T, D...> iota(int offset = 0) {
  pl::Array<T, D...> a;
  for (index_t k = 0; k < a.size(); ++k) a.data()[k] = static_cast<T>((k + offset) % 251);
  return a;
}

std::string printed(auto const& plan) {
  std::ostringstream out;
  out << plan;
  return out.str();
}

}  // namespace

TEST_CASE("emit_pipeline: ARBITRARY axes may come before PARALLEL ones, the PARALLEL one is split", "[pipeline][fidelity]") {
  auto const x = iota<float, 2 * 8, 4 * 128>();
  std::mutex m;
  std::map<int, std::set<index_t>> columns;  // core -> program_id(1) it ran
  auto const o = pl::kernel(pl::like(x), pl::mesh<mesh<2>>)([&](auto x_hbm, auto o_hbm) {
    pltpu::emit_pipeline(
        [&](auto xv, auto ov) {
          {
            std::lock_guard lock(m);
            columns[static_cast<int>(pl::axis_index<"core">())].insert(pl::program_id(1));
          }
          ov[pl::ellipsis] = xv[pl::ellipsis] * 2.0f;
        },
        pl::grid<2, 4>, pl::in_specs(pl::BlockSpec<8, 128>([](auto i, auto j) { return pl::idx(i, j); })),
        pl::out_specs(pl::BlockSpec<8, 128>([](auto i, auto j) { return pl::idx(i, j); })), pltpu::core_axis_name<"core">,
        pltpu::dimension_semantics<pltpu::ARBITRARY, pltpu::PARALLEL>)(x_hbm, o_hbm);
  })(x);
  bool same = true;
  for (index_t k = 0; k < x.size(); ++k) same &= o.data()[k] == x.data()[k] * 2.0f;
  CHECK(same);
  CHECK(columns[0] == std::set<index_t>{0, 1});
  CHECK(columns[1] == std::set<index_t>{2, 3});
}

TEST_CASE("emit_pipeline: VMEM operands are viewed in place, block by block, without copies", "[pipeline][fidelity]") {
  auto const x = iota<float, 4 * 8, 128>();
  auto k = pl::kernel(pl::like(x), pl::mesh<mesh<1>>, pl::scratch_types<pltpu::VMEM<float, 4 * 8, 128>,
                                                                       pltpu::VMEM<float, 4 * 8, 128>>)(
      [](auto x_hbm, auto o_hbm, auto x_vmem, auto o_vmem) {
        pltpu::sync_copy(x_hbm, x_vmem);
        pltpu::emit_pipeline(
            [](auto xv, auto ov) {
              for (index_t i = 0; i < 8; ++i)
                for (index_t j = 0; j < 128; ++j) ov(i, j) = xv(i, j) + static_cast<float>(pl::program_id(0));
            },
            pl::grid<4>, pl::in_specs(pl::BlockSpec<8, 128>([](auto i) { return pl::idx(3 - i, 0); })),
            pl::out_specs(pl::BlockSpec<8, 128>([](auto i) { return pl::idx(i, 0); })))(x_vmem, o_vmem);
        pltpu::sync_copy(o_vmem, o_hbm);
      });
  auto const o = k(x);
  bool same = true;
  for (index_t i = 0; i < 32; ++i)
    for (index_t j = 0; j < 128; ++j) {
      index_t const step = i / 8, src_row = (3 - step) * 8 + i % 8;
      same &= o(i, j) == x(src_row, j) + static_cast<float>(step);
    }
  CHECK(same);

  // A ragged block cannot be viewed in place: it would leave its array.
  auto ragged = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 8>>, pl::mesh<mesh<1>>,
                           pl::scratch_types<pltpu::VMEM<float, 20, 128>>)([](auto, auto v) {
    pltpu::emit_pipeline([](auto) {}, pl::grid<pl::dyn>(3),
                         pl::in_specs(pl::BlockSpec<8, 128>([](auto i) { return pl::idx(i, 0); })))(v);
  });
  CHECK_THROWS_WITH(ragged(), Catch::Contains("in_specs[0] maps grid point (2,) to block index (2, 0)") &&
                                  Catch::Contains("covers elements [16, 24), outside the array's extent 20") &&
                                  Catch::Contains("viewed in place"));
}

TEST_CASE("emit_pipeline: num_programs is the core's share of a split axis, or the grid's with global_num_programs",
          "[pipeline][fidelity]") {
  pl::Array<float, 4 * 8, 128> x;
  auto run = [&](auto... extra) {
    std::mutex m;
    std::set<std::pair<index_t, index_t>> seen;  // (num_programs(0), num_programs(1))
    (void)pl::kernel(pl::like(x), pl::mesh<mesh<2>>)([&](auto x_hbm, auto o_hbm) {
      pltpu::emit_pipeline(
          [&](auto, auto ov) {
            std::lock_guard lock(m);
            seen.insert({pl::num_programs(0), pl::num_programs(1)});
            ov[pl::ellipsis] = pl::zeros_like(ov);
          },
          pl::grid<4, 1>, pl::in_specs(pl::BlockSpec<8, 128>([](auto i, auto j) { return pl::idx(i, j); })),
          pl::out_specs(pl::BlockSpec<8, 128>([](auto i, auto j) { return pl::idx(i, j); })),
          pltpu::core_axis_name<"core">, pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::ARBITRARY>,
          extra...)(x_hbm, o_hbm);
    })(x);
    return seen;
  };
  CHECK(run() == std::set<std::pair<index_t, index_t>>{{2, 1}});
  CHECK(run(pltpu::global_num_programs) == std::set<std::pair<index_t, index_t>>{{4, 1}});
}

TEST_CASE("emit_pipeline: Buffered(n, use_lookahead) fetches the next changed blocks as soon as a slot is free",
          "[pipeline][fidelity]") {
  // The block indices 0, 0, 0, 0, 1, 1, 1, 1 of pipelining.md: lookahead fetches both
  // blocks at iteration 0.
  auto const map = [](auto i) { return pl::idx(i / 4, 0); };
  auto ahead = pltpu::emit_pipeline(
      [](auto, auto) {}, pl::grid<8>, pl::in_specs(pl::BlockSpec<8, 128>(map, pl::Buffered<2, pl::use_lookahead>)),
      pl::out_specs(pl::BlockSpec<8, 128>([](auto) { return pl::idx(0, 0); }, pl::Buffered<1, pl::RevisitMode::ANY>)));
  pl::Array<float, 16, 128> x;
  pl::Array<float, 8, 128> o;
  std::string const plan = printed(pltpu::plan_of(ahead, x.ref(), o.ref()));
  CHECK_THAT(plan, Catch::Contains("  prologue: in_specs[0] fetch (0, 0) -> slot 0\n"
                                   "  step 0 (0,): in_specs[0] fetch (1, 0) -> slot 1; wait in_specs[0] fetch slot 0"));
  // Without lookahead, block 1 is fetched at step 3.
  auto plain = pltpu::emit_pipeline([](auto, auto) {}, pl::grid<8>, pl::in_specs(pl::BlockSpec<8, 128>(map)),
                                    pl::out_specs(pl::BlockSpec<8, 128>([](auto) { return pl::idx(0, 0); })));
  CHECK_THAT(printed(pltpu::plan_of(plain, x.ref(), o.ref())),
             Catch::Contains("  step 3 (3,): in_specs[0] fetch (1, 0) -> slot 1"));

  // Results: three buffers with lookahead over blocks that change at random steps.
  auto const y = iota<float, 6 * 8, 128>();
  auto k = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 12 * 8, 128>>, pl::mesh<mesh<1>>)([](auto y_hbm, auto o_hbm) {
    constexpr auto row = [](auto i) { return pl::idx((i * 7 / 3) % 6, 0); };
    pltpu::emit_pipeline([](auto yv, auto ov) { ov[pl::ellipsis] = yv[pl::ellipsis]; }, pl::grid<12>,
                         pl::in_specs(pl::BlockSpec<8, 128>(row, pl::Buffered<3, pl::use_lookahead>)),
                         pl::out_specs(pl::BlockSpec<8, 128>([](auto i) { return pl::idx(i, 0); })))(y_hbm, o_hbm);
  });
  auto const out = k(y);
  bool same = true;
  for (index_t i = 0; i < 12 * 8; ++i)
    for (index_t j = 0; j < 128; ++j) same &= out(i, j) == y(((i / 8) * 7 / 3) % 6 * 8 + i % 8, j);
  CHECK(same);
}

TEST_CASE("pallas_call: pl::Element with padding reproduces grid_blockspec.md's unblocked example", "[pipeline][fidelity]") {
  // show_program_ids(x_shape=(7, 7), block_shape=(2, 3), grid=(4, 3), index_map=lambda i, j:
  // (2*i, 3*j), Unblocked(((1, 0), (2, 0)))): the array padded by one row and two columns.
  auto const o = pl::pallas_call(
      [](auto o_ref) {
        for (index_t i = 0; i < 2; ++i)
          for (index_t j = 0; j < 3; ++j)
            o_ref(i, j) = static_cast<std::int32_t>(10 * pl::program_id(0) + pl::program_id(1));
      },
      pl::out_shape<pl::ShapeDtypeStruct<std::int32_t, 7, 7>>, pl::grid<4, 3>,
      pl::out_specs(pl::BlockSpec<pl::Element(2, {1, 0}), pl::Element(3, {2, 0})>(
          [](auto i, auto j) { return pl::idx(2 * i, 3 * j); })),
      pltpu::no_tiling_check)();
  std::int32_t const expected[7][7] = {{0, 1, 1, 1, 2, 2, 2},       {10, 11, 11, 11, 12, 12, 12},
                                       {10, 11, 11, 11, 12, 12, 12}, {20, 21, 21, 21, 22, 22, 22},
                                       {20, 21, 21, 21, 22, 22, 22}, {30, 31, 31, 31, 32, 32, 32},
                                       {30, 31, 31, 31, 32, 32, 32}};
  bool same = true;
  for (index_t i = 0; i < 7; ++i)
    for (index_t j = 0; j < 7; ++j) same &= o(i, j) == expected[i][j];
  CHECK(same);

  // An input read through padding: the in-bounds elements arrive at their padded offsets.
  auto const x = iota<float, 5, 128>(1);
  auto const shifted = pl::pallas_call(
      [](auto x_ref, auto o_ref) {
        for (index_t j = 0; j < 128; ++j) o_ref(0, j) = x_ref(1, j);  // row 1 of a block from row -1
      },
      pl::out_shape<pl::ShapeDtypeStruct<float, 6, 128>>, pl::grid<6>,
      pl::in_specs(pl::BlockSpec<pl::Element(2, {1, 1}), 128>([](auto i) { return pl::idx(i, 0); })),
      pl::out_specs(pl::BlockSpec<1, 128>([](auto i) { return pl::idx(i, 0); })), pltpu::no_tiling_check)(x);
  bool rows = true;
  for (index_t i = 0; i < 5; ++i)
    for (index_t j = 0; j < 128; ++j) rows &= shifted(i, j) == x(i, j);
  CHECK(rows);
}

TEST_CASE("emit_pipeline: BoundedSlice dims fetch pl::ds(start, size) rows into a bound-sized block",
          "[pipeline][fidelity]") {
  auto const x = iota<float, 16, 128>(3);
  std::vector<index_t> const starts{0, 5, 13}, sizes{5, 8, 3};
  auto k = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 3, 128>>, pl::mesh<mesh<1>>)([&](auto x_hbm, auto o_hbm) {
    pltpu::emit_pipeline(
        [&](auto xv, auto ov) {
          auto const i = static_cast<std::size_t>(pl::program_id(0));
          for (index_t j = 0; j < 128; ++j) {
            float sum = 0;
            for (index_t r = 0; r < sizes[i]; ++r) sum += xv(r, j);
            ov(0, j) = sum;
          }
        },
        pl::grid<3>,
        pl::in_specs(pl::BlockSpec<pl::BoundedSlice(8), 128>([&](auto i) {
          auto const s = static_cast<std::size_t>(i);
          return std::tuple{pl::ds(starts[s], sizes[s]), index_t{0}};
        })),
        pl::out_specs(pl::BlockSpec<1, 128>([](auto i) { return pl::idx(i, 0); })), pltpu::no_tiling_check)(x_hbm, o_hbm);
  });
  auto const o = k(x);
  bool same = true;
  for (std::size_t i = 0; i < 3; ++i)
    for (index_t j = 0; j < 128; ++j) {
      float sum = 0;
      for (index_t r = 0; r < sizes[i]; ++r) sum += x(starts[i] + r, j);
      same &= o(static_cast<index_t>(i), j) == sum;
    }
  CHECK(same);
}

TEST_CASE("pallas_call: SMEM BlockSpecs hand the kernel SMEM blocks, exempt from the tiling rule", "[pipeline][fidelity]") {
  pl::Array<std::int32_t, 32> x;
  for (index_t k = 0; k < 32; ++k) x(k) = static_cast<std::int32_t>(k * k % 17);
  auto const sums = pl::pallas_call(
      [](auto x_smem, auto o_smem) {
        std::int32_t s = 0;
        for (index_t k = 0; k < 8; ++k) s += x_smem[k];
        o_smem[0] = s;
      },
      pl::out_shape<pl::ShapeDtypeStruct<std::int32_t, 4>>, pl::grid<4>,
      pl::in_specs(pl::BlockSpec<8>([](auto i) { return i; }, pl::in_memory<pltpu::MemorySpace::SMEM>)),
      pl::out_specs(pl::BlockSpec<1>([](auto i) { return i; }, pl::in_memory<pltpu::MemorySpace::SMEM>)))(x);
  for (index_t b = 0; b < 4; ++b) {
    std::int32_t expected = 0;
    for (index_t k = 0; k < 8; ++k) expected += x(b * 8 + k);
    CHECK(sums(b) == expected);
  }
}

TEST_CASE("pallas_call: index maps may call pl::program_id and pl::num_programs", "[pipeline][fidelity]") {
  auto const x = iota<float, 4 * 8, 128>();
  auto const reversed = pl::pallas_call(
      [](auto x_ref, auto o_ref) { o_ref[pl::ellipsis] = x_ref[pl::ellipsis]; }, pl::like(x), pl::grid<4>,
      pl::in_specs(pl::BlockSpec<8, 128>([](auto) { return pl::idx(pl::num_programs(0) - 1 - pl::program_id(0), 0); })),
      pl::out_specs(pl::BlockSpec<8, 128>([](auto i) { return pl::idx(i, 0); })))(x);
  bool same = true;
  for (index_t i = 0; i < 32; ++i)
    for (index_t j = 0; j < 128; ++j) same &= reversed(i, j) == x((3 - i / 8) * 8 + i % 8, j);
  CHECK(same);
}

TEST_CASE("interpret params: uninitialized memory holds the hardware poison, the interpreter's nan, or zeros",
          "[pipeline][fidelity][interpret]") {
  auto run = [] {
    return pl::pallas_call([](auto f_ref, auto i_ref) {  // writes one element of each only
                             f_ref(0, 0) = 1.0f;
                             i_ref(0, 0) = 1;
                           },
                           pl::out_shape<pl::ShapeDtypeStruct<float, 8, 128>, pl::ShapeDtypeStruct<std::int32_t, 8, 128>>,
                           pl::out_specs(pl::BlockSpec<8, 128>(), pl::BlockSpec<8, 128>()))();
  };
  auto check = [](auto const& outs, auto float_ok, auto int_ok) {
    auto const& [f, i] = outs;
    bool fs = true, is = true;
    for (index_t r = 0; r < 8; ++r)
      for (index_t c = 0; c < 128; ++c) {
        if (r == 0 && c == 0) continue;
        fs &= float_ok(f(r, c));
        is &= int_ok(i(r, c));
      }
    CHECK(f(0, 0) == 1.0f);
    CHECK(fs);
    CHECK(is);
  };
  if constexpr (pl::checked_mode)
    check(run(), [](float v) { return std::isnan(v); }, [](std::int32_t v) { return v == INT32_MIN; });
  {
    pltpu::scoped_interpret_params nan({.uninitialized = pltpu::uninitialized_memory::nan});
    check(run(), [](float v) { return std::isnan(v); }, [](std::int32_t v) { return v == INT32_MAX; });
  }
  {
    pltpu::scoped_interpret_params zero({.uninitialized = pltpu::uninitialized_memory::zero});
    check(run(), [](float v) { return v == 0.0f; }, [](std::int32_t v) { return v == 0; });
  }
}

TEST_CASE("interpret params: input_fetch at_step reads an aliased input after earlier write-backs", "[pipeline][fidelity][interpret]") {
  // A running prefix over blocks through an aliased buffer: step i reads block i - 1 of the
  // buffer it writes. Read ahead (the hardware's pipeline), the fetch of block i - 1 for step
  // i is in flight when step i - 1's write-back of that block starts: which data it reads
  // depends on which DMA finishes first, a race that checked mode reports under every DMA
  // order. Read at its step (the interpreter), step i sees what step i - 1 wrote.
  auto const x = pl::Array<float, 4 * 8, 128>::full(1.0f);
  auto prefix = [&] {
    return pl::pallas_call(
        [](auto prev_ref, auto o_ref) {
          bool const first = pl::program_id(0) == 0;
          for (index_t r = 0; r < 8; ++r)
            for (index_t c = 0; c < 128; ++c) o_ref(r, c) = (first ? 0.0f : prev_ref(r, c)) + 1.0f;
        },
        pl::like(x), pl::grid<4>,
        pl::in_specs(pl::BlockSpec<8, 128>([](auto i) { return pl::idx(i > 0 ? i - 1 : 0, 0); })),
        pl::out_specs(pl::BlockSpec<8, 128>([](auto i) { return pl::idx(i, 0); })),
        pl::input_output_aliases<pl::alias{0, 0}>, pltpu::num_cores<1>)(x);
  };
  for (auto mode : {pltpu::dma_execution_mode::on_wait, pltpu::dma_execution_mode::eager,
                    pltpu::dma_execution_mode::random}) {
    pltpu::scoped_dma_schedule const order({mode, 3});
    if constexpr (pl::checked_mode) {
      // Step 1 uses the block fetched before step 0 (the same block index); block 1's fetch
      // for step 2 starts before step 1's body, which writes block 1.
      CHECK_THROWS_WITH(prefix(), Catch::StartsWith("pallas::race: pallas::pallas_call: out_specs[0]'s write-back of "
                                                    "block (1, 0) starts while in_specs[0]'s fetch of block (1, 0)") &&
                                      Catch::EndsWith("(core 0, grid point (1,))"));
    }
    pltpu::scoped_interpret_params at_step({.input_fetch = pltpu::input_fetch::at_step});
    auto const interpreted = prefix();
    for (index_t i = 0; i < 4; ++i) CHECK(interpreted(i * 8, 0) == static_cast<float>(i + 1));  // the running count
  }
}
