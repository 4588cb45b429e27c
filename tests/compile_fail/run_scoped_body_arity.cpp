// expect-error: pallas::run_scoped: f must take one ref per scoped type, in order
// run_scoped with two types and a function of one parameter. The positive twin takes two.
#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

int main() {
  pl::kernel(pl::mesh<pltpu::TensorCoreMesh<"core", 1>>)([] {
#ifdef PALLAS_COMPILE_FAIL
    pl::run_scoped([](auto buf) { buf(0, 0) = 1.0f; }, pltpu::VMEM<float, 8, 128>{}, pltpu::SemaphoreType::DMA<>{});
#else
    pl::run_scoped([](auto buf, auto) { buf(0, 0) = 1.0f; }, pltpu::VMEM<float, 8, 128>{},
                   pltpu::SemaphoreType::DMA<>{});
#endif
  })();
  return 0;
}
