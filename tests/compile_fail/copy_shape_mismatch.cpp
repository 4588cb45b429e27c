// expect-error: pallas::copy: source and destination must have the same shape
// sync_copy between refs of different static shapes: a (128,) VMEM buffer into a (256,)
// output. The positive twin copies into the matching half of the output.
#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

int main() {
  auto k = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 256>>,
                      pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                      pl::scratch_types<pltpu::VMEM<float, 128>>)([](auto o_hbm, auto vmem) {
#ifdef PALLAS_COMPILE_FAIL
    pltpu::sync_copy(vmem, o_hbm);
#else
    pltpu::sync_copy(vmem, o_hbm.at(pl::ds<128>(pl::c<128>)));
    pltpu::sync_copy(vmem, o_hbm.at(pl::ds<128>(0)));
#endif
  });
  auto const y = k();
  return y.size() == 256 ? 0 : 1;
}
