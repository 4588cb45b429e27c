// pl::debug_print: `{}` placeholders, brace escapes, Python-style bools, numpy-style blocks,
// the core and grid-point prefix inside kernels, pipelines and pallas_call bodies (output
// captured from std::cout), and the format errors.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

namespace {

/// Captures what f writes to std::cout (cores write while the caller waits in the launch).
template <class F>
std::string captured(F f) {
  std::ostringstream out;
  std::streambuf* const old = std::cout.rdbuf(out.rdbuf());
  try {
    f();
  } catch (...) {
    std::cout.rdbuf(old);
    throw;
  }
  std::cout.rdbuf(old);
  return out.str();
}

std::vector<std::string> sorted_lines(std::string const& s) {
  std::vector<std::string> lines;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  std::sort(lines.begin(), lines.end());
  return lines;
}

}  // namespace

TEST_CASE("debug_print formats {} placeholders in order, escapes braces", "[debug_print]") {
  CHECK(captured([] { pl::debug_print("x = {}, y = {}", 1, 2.5f); }) == "x = 1, y = 2.5\n");
  CHECK(captured([] { pl::debug_print("{{}} {} {{{}}}", 7, -3); }) == "{} 7 {-3}\n");
  CHECK(captured([] { pl::debug_print("no values"); }) == "no values\n");
  CHECK(captured([] { pl::debug_print("{} {} {}", true, false, std::int8_t{-5}); }) == "True False -5\n");
  CHECK(captured([] { pl::debug_print("{}", pl::bfloat16(1.5f)); }) == "1.5\n");
  pl::block<std::int32_t, pl::shape<2, 3>> b = pl::iota<std::int32_t, pl::shape<2, 3>>(1) + 3 * pl::iota<std::int32_t, pl::shape<2, 3>>(0);
  CHECK(captured([&] { pl::debug_print("b = {}", b); }) == "b = [[0, 1, 2],\n [3, 4, 5]]\n");
  CHECK(captured([&] { pl::debug_print("{}", b * 2 > 4); }) == "[[False, False, False],\n [True, True, True]]\n");
}

TEST_CASE("debug_print rejects formats that do not match their values", "[debug_print]") {
  CHECK_THROWS_WITH(pl::debug_print("{} {}", 1), Catch::Contains("has 2 placeholders but 1 values were given"));
  CHECK_THROWS_WITH(pl::debug_print("{}", 1, 2), Catch::Contains("has 1 placeholders but 2 values were given"));
  CHECK_THROWS_WITH(pl::debug_print("x = {:.3f}", 1.0), Catch::Contains("only {} placeholders are supported"));
  CHECK_THROWS_AS(pl::debug_print("a } b"), pl::error);
}

TEST_CASE("debug_print inside a kernel names the core", "[debug_print][kernel]") {
  auto const out = captured([] {
    pl::kernel(pl::mesh<pltpu::TensorCoreMesh<"core", 2>>)(
        [] { pl::debug_print("hello from {}", pl::axis_index<"core">()); })();
  });
  CHECK(sorted_lines(out) == std::vector<std::string>{"[core 0] hello from 0", "[core 1] hello from 1"});
}

TEST_CASE("debug_print in a pallas_call body names the core and the grid point", "[debug_print][pallas_call]") {
  auto const out = captured([] {
    (void)pl::pallas_call(
        [](auto o_ref) {
          pl::debug_print("i = {}, j = {}", pl::program_id(0), pl::program_id(1));
          o_ref[pl::ellipsis] = pl::zeros_like(o_ref);
        },
        pl::out_shape<pl::ShapeDtypeStruct<float, 32, 256>>, pl::grid<4, 2>,
        pl::out_specs(pl::BlockSpec<8, 128>([](auto i, auto j) { return pl::idx(i, j); })),
        pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::ARBITRARY>, pltpu::num_cores<2>)();
  });
  // four parallel rows on two cores: rows 0 and 1 on core 0, rows 2 and 3 on core 1
  std::vector<std::string> want;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 2; ++j)
      want.push_back("[core " + std::to_string(i / 2) + ", grid (" + std::to_string(i) + ", " + std::to_string(j) +
                     ")] i = " + std::to_string(i) + ", j = " + std::to_string(j));
  std::sort(want.begin(), want.end());
  CHECK(sorted_lines(out) == want);
}

TEST_CASE("debug_print in an emit_pipeline body names the pipeline's grid point", "[debug_print][pipeline]") {
  auto const out = captured([] {
    pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 24, 128>>, pl::mesh<pltpu::TensorCoreMesh<"core", 1>>)(
        [](auto o_hbm) {
          pltpu::emit_pipeline(
              [](auto o_vmem) {
                o_vmem[pl::ellipsis] = pl::zeros_like(o_vmem);
                pl::debug_print("step");
              },
              pl::grid<3>, pl::out_specs(pl::BlockSpec<8, 128>([](auto i) { return pl::idx(i, 0); })))(o_hbm);
        })();
  });
  CHECK(out == "[core 0, grid (0,)] step\n[core 0, grid (1,)] step\n[core 0, grid (2,)] step\n");
}
