// expect-error: pallas::make_async_copy: the semaphore must be \(\)-shaped; pick one with \.at\(i\)
// make_async_copy given a whole semaphore array instead of one of its semaphores.
// The positive twin picks one with .at(1).
#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

int main() {
  pl::Array<float, 8, 128> x;
  for (int i = 0; i < 8 * 128; ++i) x.data()[i] = 1.0f;
  auto k = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 8, 128>>, pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                      pl::scratch_types<pltpu::VMEM<float, 8, 128>, pltpu::SemaphoreType::DMA<2>>)(
      [](auto x_hbm, auto o_hbm, auto buf, auto sems) {
#ifdef PALLAS_COMPILE_FAIL
        auto sem = sems;
#else
        auto sem = sems.at(1);
#endif
        pltpu::make_async_copy(x_hbm, buf, sem).start();
        pltpu::make_async_copy(x_hbm, buf, sem).wait();
        pltpu::sync_copy(buf, o_hbm);
      });
  return k(x).data()[0] == 1.0f ? 0 : 1;
}
