// expect-error: pallas::copy: source and destination must have the same rank
// sync_copy between refs of different ranks: an (8, 128) VMEM buffer into a (1024,)
// output with as many elements. The positive twin gives the output the buffer's shape.
#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

#ifdef PALLAS_COMPILE_FAIL
using out = pl::ShapeDtypeStruct<float, 1024>;
#else
using out = pl::ShapeDtypeStruct<float, 8, 128>;
#endif

int main() {
  auto k = pl::kernel(pl::out_type<out>, pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                      pl::scratch_types<pltpu::VMEM<float, 8, 128>>)(
      [](auto o_hbm, auto vmem) { pltpu::sync_copy(vmem, o_hbm); });
  auto const y = k();
  return y.size() == 1024 ? 0 : 1;
}
