// expect-error: pallas::kernel: exactly one mesh is needed
// pl::kernel without a mesh. The positive twin names pltpu::TensorCoreMesh<"core">.
#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

int main() {
  auto k = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 128>>,
#ifndef PALLAS_COMPILE_FAIL
                      pl::mesh<pltpu::TensorCoreMesh<"core">>,
#endif
                      pl::scratch_types<pltpu::VMEM<float, 128>>)(
      [](auto o_hbm, auto vmem) { pltpu::sync_copy(vmem, o_hbm); });
  auto const y = k();
  return y.size() == 128 ? 0 : 1;
}
