// expect-error: pallas::run_scoped: every type must be a pltpu::VMEM<T, dims...>, pltpu::SMEM<T, dims...> or pltpu::SemaphoreType
// run_scoped given a value that is not a scoped allocation type (a float array type).
// The positive twin asks for a VMEM buffer.
#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

#ifdef PALLAS_COMPILE_FAIL
using scoped = pl::ShapeDtypeStruct<float, 8, 128>;
#else
using scoped = pltpu::VMEM<float, 8, 128>;
#endif

int main() {
  pl::kernel(pl::mesh<pltpu::TensorCoreMesh<"core", 1>>)([] {
    pl::run_scoped([](auto buf) { buf(0, 0) = 1.0f; }, scoped{});
  })();
  return 0;
}
