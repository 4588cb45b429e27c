// The TPU pipelining guide's multiple buffering and lookahead prefetch
// (docs/pallas/tpu/pipelining.md, "Multiple Buffering" and "Lookahead Prefetch"), with
// emit_pipeline inside pl::kernel, and the schedule each gives read off the pipeline's plan
// (pltpu::plan_of):
//
//   pl.BlockSpec(block_shape, index_map, pipeline_mode=pl.Buffered(buffer_count=3))
//   pl.BlockSpec(block_shape, index_map, pipeline_mode=pl.Buffered(buffer_count=2, use_lookahead=True))
//
// 1. Lookahead: the guide's grid of (8,) whose input block indices are 0, 0, 0, 0, 1, 1, 1, 1.
//    The standard schedule fetches block 1 at step 3 (one step before it is used); with
//    use_lookahead it is fetched at step 0, as soon as a slot is free.
// 2. Multiple buffering: a grid of (8,) over distinct blocks. With two buffers (the default)
//    block s + 1 is fetched during step s; with pl::Buffered<3>, block s + 2.
// Each pipeline also runs (o = x + step), compared with a loop.

#include <cstdint>
#include <iostream>
#include <string>

#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

using In = pl::Array<float, 8 * 8, 128>;   // up to 8 blocks of (8, 128)
using Out = pl::Array<float, 8 * 8, 128>;  // one output block per step

// The local step during which the pipeline starts fetching input block `block` (-1: before
// the first step), from the plan of core 0.
template <class Plan>
int fetch_step_of(Plan const& plan, std::int32_t block) {
  auto const runs = plan.runs_of(0, 0);
  for (auto const& e : plan.events_of(0))
    if (e.kind == pl::event_kind::fetch_start && e.operand == 0 &&
        plan.block(runs[static_cast<std::size_t>(e.index)], 0)[0] == block)
      return e.step;
  return -2;  // never fetched
}

// Runs `pipeline` (x's block map `in_block`) and checks o = x[in_block(s)] + s for each step s.
template <class Pipeline, class InBlock>
bool run_and_check(std::string const& what, Pipeline const& pipeline, In const& x, InBlock in_block) {
  auto const o = pl::kernel(pl::like(Out{}), pl::mesh<pltpu::TensorCoreMesh<"core", 1>>)(
      [&](auto x_hbm, auto o_hbm) { pipeline(x_hbm, o_hbm); })(x);
  for (pl::index_t s = 0; s < 8; ++s)
    for (pl::index_t r = 0; r < 8; ++r)
      for (pl::index_t j = 0; j < 128; ++j) {
        float const expected = x(in_block(s) * 8 + r, j) + static_cast<float>(s);
        if (o(s * 8 + r, j) != expected) {
          std::cerr << "lookahead_prefetch (" << what << "): o[" << s * 8 + r << ", " << j << "] is " << o(s * 8 + r, j)
                    << ", expected " << expected << '\n';
          return false;
        }
      }
  return true;
}

int main() {
  auto const x = In::generate([](auto i, auto j) { return static_cast<float>(i * 128 + j); });
  Out const o_shape;
  auto body = [](auto x_vmem, auto o_vmem) {
    o_vmem[pl::ellipsis] = x_vmem[pl::ellipsis] + static_cast<float>(pl::program_id(0));
  };
  auto out_spec = pl::BlockSpec<8, 128>([](auto i) { return pl::idx(i, 0); });
  bool ok = true;

  // 1. Lookahead over block indices 0, 0, 0, 0, 1, 1, 1, 1.
  auto halves = [](auto i) { return pl::idx(i / 4, 0); };
  auto standard = pltpu::emit_pipeline(body, pl::grid<8>, pl::in_specs(pl::BlockSpec<8, 128>(halves)),
                                       pl::out_specs(out_spec));
  auto lookahead = pltpu::emit_pipeline(
      body, pl::grid<8>, pl::in_specs(pl::BlockSpec<8, 128>(halves, pl::Buffered<2, pl::use_lookahead>)),
      pl::out_specs(out_spec));
  int const standard_step = fetch_step_of(pltpu::plan_of(standard, x.ref(), o_shape.ref()), 1);
  int const lookahead_step = fetch_step_of(pltpu::plan_of(lookahead, x.ref(), o_shape.ref()), 1);
  std::cout << "block indices 0, 0, 0, 0, 1, 1, 1, 1: block 1 is fetched during step " << standard_step
            << " (standard), " << lookahead_step << " (use_lookahead)\n";
  if (standard_step != 3 || lookahead_step != 0) {
    std::cerr << "lookahead_prefetch: expected block 1 fetched during step 3 without lookahead, 0 with it\n";
    ok = false;
  }
  auto const half_of = [](pl::index_t s) { return s / 4; };
  ok &= run_and_check("standard", standard, x, half_of);
  ok &= run_and_check("use_lookahead", lookahead, x, half_of);
  std::cout << "the lookahead plan:\n" << pltpu::plan_of(lookahead, x.ref(), o_shape.ref());

  // 2. Two and three buffers over distinct blocks.
  auto each = [](auto i) { return pl::idx(i, 0); };
  auto double_buffered = pltpu::emit_pipeline(body, pl::grid<8>, pl::in_specs(pl::BlockSpec<8, 128>(each)),
                                              pl::out_specs(out_spec));
  auto triple_buffered = pltpu::emit_pipeline(
      body, pl::grid<8>, pl::in_specs(pl::BlockSpec<8, 128>(each, pl::Buffered<3>)), pl::out_specs(out_spec));
  auto const double_plan = pltpu::plan_of(double_buffered, x.ref(), o_shape.ref());
  auto const triple_plan = pltpu::plan_of(triple_buffered, x.ref(), o_shape.ref());
  for (std::int32_t b = 2; b < 8; ++b) {
    int const two = fetch_step_of(double_plan, b), three = fetch_step_of(triple_plan, b);
    if (two != b - 1 || three != b - 2) {
      std::cerr << "lookahead_prefetch: block " << b << " fetched during step " << two << " with 2 buffers and "
                << three << " with 3; expected " << b - 1 << " and " << b - 2 << '\n';
      ok = false;
    }
  }
  std::cout << "distinct blocks: block b is fetched during step b - 1 with 2 buffers, b - 2 with pl::Buffered<3>\n";
  auto const same_block = [](pl::index_t s) { return s; };
  ok &= run_and_check("2 buffers", double_buffered, x, same_block);
  ok &= run_and_check("3 buffers", triple_buffered, x, same_block);

  std::cout << (ok ? "lookahead_prefetch: ok\n" : "lookahead_prefetch: WRONG\n");
  return ok ? 0 : 1;
}
