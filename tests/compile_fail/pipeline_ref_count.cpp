// expect-error: pallas::emit_pipeline: pass one ref per in_spec and out_spec
// Two specs, one ref.
#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

int main() {
  pl::Array<float, 256, 256> x;
  using Mesh = pltpu::TensorCoreMesh<"core", 2>;
  auto k = pl::kernel(pl::like(x), pl::mesh<Mesh>)([]([[maybe_unused]] auto x_hbm, auto o_hbm) {
#ifdef PALLAS_COMPILE_FAIL
    pltpu::emit_pipeline([](auto xv, auto ov) { ov(0, 0) = xv(0, 0); }, pl::grid<2, 2>, pl::in_specs(pl::BlockSpec<128, 128>([](auto i, auto j) { return pl::idx(i, j); })), pl::out_specs(pl::BlockSpec<128, 128>([](auto i, auto j) { return pl::idx(i, j); })), pltpu::core_axis_name<"core">, pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::ARBITRARY>)(o_hbm);
#else
    pltpu::emit_pipeline([](auto xv, auto ov) { ov(0, 0) = xv(0, 0); }, pl::grid<2, 2>, pl::in_specs(pl::BlockSpec<128, 128>([](auto i, auto j) { return pl::idx(i, j); })), pl::out_specs(pl::BlockSpec<128, 128>([](auto i, auto j) { return pl::idx(i, j); })), pltpu::core_axis_name<"core">, pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::ARBITRARY>)(x_hbm, o_hbm);
#endif
  });
  auto o = k(x);
  return o(0, 0) == 0.0f ? 0 : 1;
}
