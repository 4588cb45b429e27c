// expect-error: an output block is revisited after another block
// matmul.md's grid at 10 x 10 x 10 steps (1000, past the plan the compiler computes outright) on
// two cores; the last step goes back to block (9, 0). The twin, the plain matmul grid,
// must compile with g++ and clang++ (the rules used to exceed the compilers' constexpr
// step limits from about 200 steps on).
#include <pallas/block_view.hpp>
#include <pallas/expr/elementwise.hpp>
#include <pallas/expr/creation.hpp>
#include <pallas/pallas_call.hpp>
#include <pallas/program_id.hpp>
#include <pallas/when.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

int main() {
  constexpr pl::index_t g = 10, bm = 8, bk = 128, bn = 128;
  pl::Array<float, g * bm, g * bk> x;
  pl::Array<float, g * bk, g * bn> y;
  // (An elementwise body stands in for the product: the rules only look at the specs.)
  auto kernel = [](auto x_ref, auto y_ref, auto z_ref) {
    pl::when(pl::program_id(2) == 0, [&] { z_ref[pl::ellipsis] = pl::zeros_like(z_ref); });
    z_ref[pl::ellipsis] += x_ref[pl::ellipsis] * y_ref(0, 0);
  };
#ifdef PALLAS_COMPILE_FAIL
  auto z_map = [](auto i, auto j, auto k) { return pl::idx(i, i == g - 1 && j == g - 1 && k == g - 1 ? 0 : j); };
#else
  auto z_map = [](auto i, auto j, auto) { return pl::idx(i, j); };
#endif
  auto matmul = pl::pallas_call(
      kernel, pl::out_shape<pl::ShapeDtypeStruct<float, g * bm, g * bn>>, pl::grid<g, g, g>,
      pl::in_specs(pl::BlockSpec<bm, bk>([](auto i, auto, auto k) { return pl::idx(i, k); }),
                   pl::BlockSpec<bk, bn>([](auto, auto j, auto k) { return pl::idx(k, j); })),
      pl::out_specs(pl::BlockSpec<bm, bn>(z_map)),
      pltpu::compiler_params(pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::PARALLEL, pltpu::ARBITRARY>),
      pltpu::num_cores<2>);
  matmul(x, y);
}
