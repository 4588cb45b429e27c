// expect-error: pallas::semaphore_wait: a DMA semaphore is waited on with the copy's \.wait\(\)
// expect-no-numbers: the rule compares semaphore kinds, not sizes
// semaphore_wait on the DMA semaphore a copy signals (it counts bytes; only the copy knows
// how many). The positive twin waits with the copy's .wait().
#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

int main() {
  pl::Array<float, 8, 128> x;
  for (int i = 0; i < 8 * 128; ++i) x.data()[i] = 1.0f;
  auto k = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 8, 128>>, pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                      pl::scratch_types<pltpu::VMEM<float, 8, 128>, pltpu::SemaphoreType::DMA<>>)(
      [](auto x_hbm, auto o_hbm, auto buf, auto sem) {
        auto copy = pltpu::make_async_copy(x_hbm, buf, sem);
        copy.start();
#ifdef PALLAS_COMPILE_FAIL
        pl::semaphore_wait(sem, 8 * 128 * 4);
#else
        copy.wait();
#endif
        pltpu::sync_copy(buf, o_hbm);
      });
  return k(x).data()[0] == 1.0f ? 0 : 1;
}
