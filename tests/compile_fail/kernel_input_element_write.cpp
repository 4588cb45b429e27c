// expect-error: pallas::kernel: input refs are read-only
// An element store into an input's HBM ref: HBM refs take no element access, and this one
// is read-only too; the message says both. The positive twin stores into a VMEM copy.
#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

int main() {
  auto k = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 128>>, pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                      pl::scratch_types<pltpu::VMEM<float, 128>>)([](auto x_hbm, auto o_hbm, auto vmem) {
    pltpu::sync_copy(x_hbm, vmem);
#ifdef PALLAS_COMPILE_FAIL
    x_hbm(0) = 7.0f;
#else
    vmem(0) = 7.0f;
#endif
    pltpu::sync_copy(vmem, o_hbm);
  });
  auto const x = pl::Array<float, 128>::full(1.0f);
  auto const o = k(x);
  return o(0) == 7.0f && o(1) == 1.0f && x(0) == 1.0f ? 0 : 1;
}
