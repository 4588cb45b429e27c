// expect-error: pallas::make_async_copy: the semaphore must be a DMA semaphore
// make_async_copy signals a REGULAR semaphore: copies count bytes on DMA semaphores.
// The positive twin uses a DMA semaphore.
#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

#ifdef PALLAS_COMPILE_FAIL
using sem_type = pltpu::SemaphoreType::REGULAR<>;
#else
using sem_type = pltpu::SemaphoreType::DMA<>;
#endif

int main() {
  pl::Array<float, 8, 128> x;
  for (int i = 0; i < 8 * 128; ++i) x.data()[i] = 1.0f;
  auto k = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 8, 128>>, pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                      pl::scratch_types<pltpu::VMEM<float, 8, 128>, sem_type>)(
      [](auto x_hbm, auto o_hbm, auto buf, auto sem) {
        pltpu::async_copy(x_hbm, buf, sem).wait();
        pltpu::sync_copy(buf, o_hbm);
      });
  return k(x).data()[0] == 1.0f ? 0 : 1;
}
