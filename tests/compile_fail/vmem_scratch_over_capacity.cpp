// expect-error: (268435456L? <= 67108864.*pallas::kernel: the VMEM scratch exceeds the chip's VMEM|pallas::kernel: the VMEM scratch exceeds the chip's VMEM.*268435456L? <= 67108864)
// A VMEM scratch buffer larger than the chip's VMEM: 8192 x 8192 floats are 256 MiB, a
// v5p TensorCore has 64 MiB; the message shows both numbers. The positive twin asks for
// 4 MiB.
#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

#ifdef PALLAS_COMPILE_FAIL
using scratch = pltpu::VMEM<float, 8192, 8192>;
#else
using scratch = pltpu::VMEM<float, 1024, 1024>;
#endif

int main() {
  auto k = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 128>>,
                      pl::mesh<pltpu::TensorCoreMesh<"core", 1>>, pl::scratch_types<scratch>)(
      [](auto o_hbm, auto big) { pltpu::sync_copy(big.at(0, pl::ds<128>(0)), o_hbm); });
  auto const y = k();
  return y.size() == 128 ? 0 : 1;
}
