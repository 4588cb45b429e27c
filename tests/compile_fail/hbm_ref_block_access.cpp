// expect-error: pallas::Ref: cannot load, store or compute on an HBM/ANY ref
// Computing on an HBM ref: `x_hbm[...]` inside a kernel. HBM is only reachable by DMA;
// the positive twin copies the input to VMEM first.
#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

int main() {
  auto k = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 128>>,
                      pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                      pl::scratch_types<pltpu::VMEM<float, 128>>)(
      [](auto x_hbm, auto o_hbm, auto vmem) {
#ifdef PALLAS_COMPILE_FAIL
        (void)x_hbm[pl::ellipsis];
#else
        pltpu::sync_copy(x_hbm, vmem);
#endif
        pltpu::sync_copy(vmem, o_hbm);
      });
  pl::Array<float, 128> const x;
  auto const y = k(x);
  return y(0) == 0.0f ? 0 : 1;
}
