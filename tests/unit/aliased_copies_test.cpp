// SPDX-License-Identifier: Apache-2.0
// Pipelines whose input and output are one buffer (pallas_call's input_output_aliases, one
// HBM ref given to emit_pipeline as both): a fetch and a write-back of the same bytes in
// flight together race (which data the fetch reads depends on which DMA finishes first), and
// checked mode reports it under every DMA order; copies of one buffer that never overlap in
// time (the in-place pattern, block i read and written at step i) run as before.

#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include <pallas/pallas.hpp>

#include "../support/error_of.hpp"

namespace pl = pallas;
namespace pltpu = pallas::tpu;

namespace {

using pl::index_t;
using Rows = pl::Array<float, 4 * 8, 128>;

// Row r holds r / 8: block b (8 rows) holds b.
Rows const& block_numbers() {
  static Rows const x = Rows::generate([](auto i, auto) { return static_cast<float>(i / 8); });
  return x;
}

// The orders a schedule-dependent result would differ under; the race must not depend on it.
std::vector<pltpu::dma_schedule> every_order() {
  return {{pltpu::dma_execution_mode::on_wait},
          {pltpu::dma_execution_mode::eager},
          {pltpu::dma_execution_mode::random, 1},
          {pltpu::dma_execution_mode::random, 822975197}};
}

// x + 10 with input 0 aliased to output 0: step i reads block InMap(i) and writes block OutMap(i).
template <class InMap, class OutMap>
Rows add_ten_aliased(Rows const& x, InMap in_map, OutMap out_map) {
  return pl::pallas_call([](auto x_ref, auto o_ref) { o_ref[pl::ellipsis] = x_ref[pl::ellipsis] + 10.0f; },
                         pl::like(x), pl::grid<4>, pl::in_specs(pl::BlockSpec<8, 128>(in_map)),
                         pl::out_specs(pl::BlockSpec<8, 128>(out_map)), pl::input_output_aliases<pl::alias{0, 0}>)(x);
}

}  // namespace

TEST_CASE("aliased copies: a fetch started before a write-back of its bytes, both in flight, is a race",
          "[aliases][checked]") {
  // Step i reads block i and writes block i + 1 (mod 4): the fetch of block 1 for step 1
  // starts before step 0's body, and step 0's write-back of block 1 starts after it, before
  // the fetch's wait.
  for (auto const& schedule : every_order()) {
    pltpu::scoped_dma_schedule use(schedule);
    std::string const msg = pallas_test::error_of<pl::race_error>([] {
      add_ten_aliased(
          block_numbers(), [](auto i) { return pl::idx(i, 0); }, [](auto i) { return pl::idx((i + 1) % 4, 0); });
    });
    CHECK_THAT(msg, Catch::StartsWith("pallas::race: pallas::pallas_call: out_specs[0]'s write-back of block (1, 0) "
                                      "starts while in_specs[0]'s fetch of block (1, 0) is in flight over the same HBM "
                                      "bytes"));
    CHECK_THAT(msg, Catch::Contains("which DMA finishes first") && Catch::EndsWith("(core 0, grid point (0,))"));
  }
}

TEST_CASE("aliased copies: a fetch started while a write-back of its bytes is in flight is a race",
          "[aliases][checked]") {
  // Step i writes block i and reads block (i + 2) mod 4: step 0's write-back of block 0 is
  // waited at the end of step 1, and the fetch of block 0 for step 2 starts before step 1's body.
  for (auto const& schedule : every_order()) {
    pltpu::scoped_dma_schedule use(schedule);
    std::string const msg = pallas_test::error_of<pl::race_error>([] {
      add_ten_aliased(
          block_numbers(), [](auto i) { return pl::idx((i + 2) % 4, 0); }, [](auto i) { return pl::idx(i, 0); });
    });
    CHECK_THAT(msg, Catch::StartsWith("pallas::race: pallas::pallas_call: in_specs[0]'s fetch of block (0, 0) starts "
                                      "while out_specs[0]'s write-back of block (0, 0) is in flight"));
    CHECK_THAT(msg, Catch::EndsWith("(core 0, grid point (0,))"));
  }
}

TEST_CASE("aliased copies: block i read and written at step i runs in place under every order", "[aliases]") {
  auto const& x = block_numbers();
  for (auto const& schedule : every_order()) {
    pltpu::scoped_dma_schedule use(schedule);
    auto const o = add_ten_aliased(
        x, [](auto i) { return pl::idx(i, 0); }, [](auto i) { return pl::idx(i, 0); });
    for (index_t r = 0; r < 32; ++r)
      for (index_t c = 0; c < 128; c += 127) CHECK(o(r, c) == x(r, c) + 10.0f);
  }
}

TEST_CASE("aliased copies: emit_pipeline over one HBM ref as input and output", "[aliases][checked]") {
  auto const& x = block_numbers();
  // The kernel copies x into o, then adds 10 through a pipeline over o and o: in place with
  // the same index maps, a race with the output one block ahead.
  auto in_place = [&](auto out_map) {
    return pl::kernel(pl::like(x), pl::mesh<pltpu::TensorCoreMesh<"core", 1>>)([out_map](auto x_hbm, auto o_hbm) {
      pltpu::sync_copy(x_hbm, o_hbm);
      pltpu::emit_pipeline([](auto in, auto out) { out[pl::ellipsis] = in[pl::ellipsis] + 10.0f; }, pl::grid<4>,
                           pl::in_specs(pl::BlockSpec<8, 128>([](auto i) { return pl::idx(i, 0); })),
                           pl::out_specs(pl::BlockSpec<8, 128>(out_map)))(o_hbm, o_hbm);
    })(x);
  };
  auto const o = in_place([](auto i) { return pl::idx(i, 0); });
  for (index_t r = 0; r < 32; ++r) CHECK(o(r, 0) == x(r, 0) + 10.0f);

  std::string const msg =
      pallas_test::error_of<pl::race_error>([&] { in_place([](auto i) { return pl::idx((i + 1) % 4, 0); }); });
  CHECK_THAT(msg, Catch::StartsWith("pallas::race: pallas::emit_pipeline: out_specs[0]'s write-back of block (1, 0) "
                                    "starts while in_specs[0]'s fetch of block (1, 0) is in flight"));
}
