// expect-error: pallas::semaphore_signal: the semaphore must be \(\)-shaped; pick one with \.at\(i\)
// semaphore_signal on a whole semaphore array. The positive twin signals .at(1).
#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

int main() {
  pl::kernel(pl::mesh<pltpu::TensorCoreMesh<"core", 1>>, pl::scratch_types<pltpu::SemaphoreType::REGULAR<2>>)(
      [](auto sems) {
#ifdef PALLAS_COMPILE_FAIL
        pl::semaphore_signal(sems, 1);
#else
        pl::semaphore_signal(sems.at(1), 1);
#endif
        pl::semaphore_wait(sems.at(1), 1);
      })();
  return 0;
}
