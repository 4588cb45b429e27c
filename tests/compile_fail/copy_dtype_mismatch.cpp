// expect-error: pallas::copy: source and destination must have the same dtype
// sync_copy between refs of different dtypes: an int32 VMEM buffer into a float output.
// The positive twin uses a float buffer.
#include <pallas/pallas.hpp>

#include <cstdint>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

#ifdef PALLAS_COMPILE_FAIL
using element = std::int32_t;
#else
using element = float;
#endif

int main() {
  auto k = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 128>>,
                      pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                      pl::scratch_types<pltpu::VMEM<element, 128>>)(
      [](auto o_hbm, auto vmem) { pltpu::sync_copy(vmem, o_hbm); });
  auto const y = k();
  return y.size() == 128 ? 0 : 1;
}
