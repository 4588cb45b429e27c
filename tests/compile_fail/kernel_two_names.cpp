// expect-error: pallas::kernel: at most one pl::name
// A kernel named twice (which name would the trace show?). The positive twin names it once.
#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

int main() {
  auto k = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 8, 128>>, pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
#ifdef PALLAS_COMPILE_FAIL
                      pl::name("fill"), pl::name("fill_again"),
#else
                      pl::name("fill"),
#endif
                      pl::scratch_types<pltpu::VMEM<float, 8, 128>>)([](auto o_hbm, auto o_vmem) {
    o_vmem[pl::ellipsis] = pl::full_like(o_vmem, 1.0f);
    pltpu::sync_copy(o_vmem, o_hbm);
  });
  return k()(7, 127) == 1.0f ? 0 : 1;
}
