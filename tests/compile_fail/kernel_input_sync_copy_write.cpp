// expect-error: pallas::kernel: input refs are read-only: a copy cannot write into a kernel's input
// sync_copy into an input's HBM ref would change the caller's const pl::Array. The positive
// twin writes the output instead (and reads the input).
#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

int main() {
  auto k = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 128>>, pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                      pl::scratch_types<pltpu::VMEM<float, 128>>)([](auto x_hbm, [[maybe_unused]] auto o_hbm, auto vmem) {
    pltpu::sync_copy(x_hbm, vmem);
    vmem[pl::ellipsis] = vmem[pl::ellipsis] + 1.0f;
#ifdef PALLAS_COMPILE_FAIL
    pltpu::sync_copy(vmem, x_hbm);
#else
    pltpu::sync_copy(vmem, o_hbm);
#endif
  });
  auto const x = pl::Array<float, 128>::full(2.0f);
  auto const o = k(x);
  return o(0) == 3.0f && x(0) == 2.0f ? 0 : 1;
}
