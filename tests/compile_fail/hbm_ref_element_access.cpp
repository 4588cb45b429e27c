// expect-error: pallas::Ref: cannot load, store or compute on an HBM/ANY ref
// Loading one element of an HBM ref: `x_hbm(0)`. The positive twin reads it from a VMEM
// copy.
#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

int main() {
  auto k = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 128>>,
                      pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                      pl::scratch_types<pltpu::VMEM<float, 128>>)(
      [](auto x_hbm, auto o_hbm, auto vmem) {
        pltpu::sync_copy(x_hbm, vmem);
#ifdef PALLAS_COMPILE_FAIL
        float const first = x_hbm(0);
#else
        float const first = vmem(0);
#endif
        vmem(1) = first;
        pltpu::sync_copy(vmem, o_hbm);
      });
  pl::Array<float, 128> const x;
  auto const y = k(x);
  return y(1) == 0.0f ? 0 : 1;
}
