// expect-error: pallas::pallas_call: compiler_params\(\.\.\.\) takes pltpu::dimension_semantics
// The grid passed inside compiler_params(...): it is pallas_call's own option (Pallas'
// CompilerParams holds dimension_semantics, vmem_limit_bytes and the like, not the grid).
#include <pallas/block_view.hpp>
#include <pallas/expr/elementwise.hpp>
#include <pallas/pallas_call.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

int main() {
  pl::Array<float, 256, 256> x;
  constexpr auto ij = [](auto i, auto j) { return pl::idx(i, j); };
  auto twice = [](auto x_ref, auto o_ref) { o_ref[pl::ellipsis] = x_ref[pl::ellipsis] + x_ref[pl::ellipsis]; };
#ifdef PALLAS_COMPILE_FAIL
  auto call = pl::pallas_call(twice, pl::like(x), pl::in_specs(pl::BlockSpec<128, 128>(ij)),
                              pl::out_specs(pl::BlockSpec<128, 128>(ij)),
                              pltpu::compiler_params(pl::grid<2, 2>, pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::PARALLEL>));
#else
  auto call = pl::pallas_call(twice, pl::like(x), pl::grid<2, 2>, pl::in_specs(pl::BlockSpec<128, 128>(ij)),
                              pl::out_specs(pl::BlockSpec<128, 128>(ij)),
                              pltpu::compiler_params(pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::PARALLEL>));
#endif
  auto y = call(x);
  return y(0, 0) == 0 ? 0 : 1;
}
