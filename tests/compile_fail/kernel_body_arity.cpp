// expect-error: (1 == 2.*pallas::kernel: the body must take one parameter per input, output and scratch buffer|pallas::kernel: the body must take one parameter per input, output and scratch buffer.*1 == 2)
// A non-generic body with the wrong number of parameters: one output and one scratch
// buffer, but the body takes only the output ref. The compiler prints both counts. The
// positive twin takes both.
#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

using out_ref = pl::Ref<float, pl::shape<128>, pl::memory_space::hbm>;
using vmem_ref = pl::Ref<float, pl::shape<128>, pl::memory_space::vmem>;

int main() {
  auto k = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 128>>,
                      pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                      pl::scratch_types<pltpu::VMEM<float, 128>>)(
#ifdef PALLAS_COMPILE_FAIL
      [](out_ref o_ref) { (void)o_ref; });
#else
      [](out_ref o_ref, vmem_ref o_vmem) {
        for (pl::index_t i = 0; i < 128; ++i) o_vmem(i) = 1.0f;
        pltpu::sync_copy(o_vmem, o_ref);
      });
#endif
  auto const y = k();
  return y(0) == 1.0f ? 0 : 1;
}
