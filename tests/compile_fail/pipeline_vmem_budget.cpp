// expect-error: pallas::emit_pipeline: the pipeline.s VMEM buffers
// Two 4096x4096 f32 blocks, double-buffered: 256 MiB of VMEM on a 64 MiB chip.
#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

int main() {
  pl::Array<float, 4096, 4096> x;
  using Mesh = pltpu::TensorCoreMesh<"core", 2>;
  auto k = pl::kernel(pl::like(x), pl::mesh<Mesh>)([](auto x_hbm, auto o_hbm) {
#ifdef PALLAS_COMPILE_FAIL
    pltpu::emit_pipeline([](auto xv, auto ov) { ov(0, 0) = xv(0, 0); }, pl::grid<1, 1>, pl::in_specs(pl::BlockSpec<4096, 4096>([](auto i, auto j) { return pl::idx(i, j); })), pl::out_specs(pl::BlockSpec<4096, 4096>([](auto i, auto j) { return pl::idx(i, j); })), pltpu::core_axis_name<"core">, pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::ARBITRARY>)(x_hbm, o_hbm);
#else
    pltpu::emit_pipeline([](auto xv, auto ov) { ov(0, 0) = xv(0, 0); }, pl::grid<8, 8>, pl::in_specs(pl::BlockSpec<512, 512>([](auto i, auto j) { return pl::idx(i, j); })), pl::out_specs(pl::BlockSpec<512, 512>([](auto i, auto j) { return pl::idx(i, j); })), pltpu::core_axis_name<"core">, pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::ARBITRARY>)(x_hbm, o_hbm);
#endif
  });
  auto o = k(x);
  return o(0, 0) == 0.0f ? 0 : 1;
}
