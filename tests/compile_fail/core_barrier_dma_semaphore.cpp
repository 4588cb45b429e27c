// expect-error: pallas::core_barrier: the semaphore must be a REGULAR or BARRIER semaphore
// core_barrier on a DMA semaphore (which counts the bytes of copies). The positive twin
// uses a REGULAR semaphore.
#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

#ifdef PALLAS_COMPILE_FAIL
using sem_type = pltpu::SemaphoreType::DMA<>;
#else
using sem_type = pltpu::SemaphoreType::REGULAR<>;
#endif

int main() {
  pl::kernel(pl::mesh<pltpu::TensorCoreMesh<"core", 2>>, pl::scratch_types<sem_type>)(
      [](auto sem) { pltpu::core_barrier<"core">(sem); })();
  return 0;
}
