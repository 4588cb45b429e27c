// expect-error: pallas::pallas_call: PARALLEL axes must come before ARBITRARY ones
// pallas_call splits the leading PARALLEL axes among the cores (emit_pipeline accepts any order).
#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

int main() {
  pl::Array<float, 256, 256> x;
  auto copy = [](auto x_ref, auto o_ref) { o_ref[pl::ellipsis] = x_ref[pl::ellipsis]; };
  auto spec = pl::BlockSpec<128, 128>([](auto i, auto j) { return pl::idx(i, j); });
#ifdef PALLAS_COMPILE_FAIL
  auto o = pl::pallas_call(copy, pl::like(x), pl::grid<2, 2>, pl::in_specs(spec), pl::out_specs(spec),
                           pltpu::dimension_semantics<pltpu::ARBITRARY, pltpu::PARALLEL>)(x);
#else
  auto o = pl::pallas_call(copy, pl::like(x), pl::grid<2, 2>, pl::in_specs(spec), pl::out_specs(spec),
                           pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::ARBITRARY>)(x);
#endif
  return o(0, 0) == x(0, 0) ? 0 : 1;
}
