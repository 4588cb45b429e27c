// expect-error: pallas::kernel: input refs are read-only: a copy cannot write into a kernel's input
// An input's HBM ref (here a slice of it) as the destination of make_async_copy. The
// positive twin copies into the output's slice.
#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

int main() {
  auto k = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 256>>, pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                      pl::scratch_types<pltpu::VMEM<float, 128>, pltpu::SemaphoreType::DMA<>>)(
      [](auto x_hbm, auto o_hbm, auto vmem, auto sem) {
        pltpu::sync_copy(x_hbm.at(pl::ds<128>(0)), vmem);
#ifdef PALLAS_COMPILE_FAIL
        auto copy = pltpu::make_async_copy(vmem, x_hbm.at(pl::ds<128>(128)), sem);
#else
        auto copy = pltpu::make_async_copy(vmem, o_hbm.at(pl::ds<128>(128)), sem);
#endif
        copy.start();
        copy.wait();
        pltpu::sync_copy(vmem, o_hbm.at(pl::ds<128>(0)));
      });
  auto const x = pl::Array<float, 256>::full(5.0f);
  auto const o = k(x);
  return o(0) == 5.0f && o(255) == 5.0f ? 0 : 1;
}
