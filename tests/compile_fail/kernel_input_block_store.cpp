// expect-error: pallas::kernel: input refs are read-only
// A block store into an input's HBM ref (`x_hbm[...] = ...`). The positive twin stores the
// block into VMEM scratch and copies it to the output.
#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

int main() {
  auto k = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 128>>, pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                      pl::scratch_types<pltpu::VMEM<float, 128>>)([](auto x_hbm, auto o_hbm, auto vmem) {
#ifdef PALLAS_COMPILE_FAIL
    x_hbm[pl::ellipsis] = pl::zeros_like(vmem);
#else
    vmem[pl::ellipsis] = pl::zeros_like(vmem);
#endif
    pltpu::sync_copy(vmem, o_hbm);
    (void)x_hbm;
  });
  auto const x = pl::Array<float, 128>::full(1.0f);
  auto const o = k(x);
  return o(0) == 0.0f && x(0) == 1.0f ? 0 : 1;
}
