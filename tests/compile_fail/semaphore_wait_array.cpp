// expect-error: pallas::semaphore_wait: the semaphore must be \(\)-shaped; pick one with \.at\(i\)
// semaphore_wait on a whole REGULAR semaphore array. The positive twin waits on .at(0).
#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

int main() {
  pl::kernel(pl::mesh<pltpu::TensorCoreMesh<"core", 1>>, pl::scratch_types<pltpu::SemaphoreType::REGULAR<4>>)(
      [](auto sems) {
        pl::semaphore_signal(sems.at(0), 1);
#ifdef PALLAS_COMPILE_FAIL
        pl::semaphore_wait(sems, 1);
#else
        pl::semaphore_wait(sems.at(0), 1);
#endif
      })();
  return 0;
}
