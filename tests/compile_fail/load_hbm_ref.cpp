// expect-error: pallas::load: cannot load, store or compute on an HBM/ANY ref
// pl::load of an HBM ref: copy it to VMEM first. The positive twin loads a VMEM ref.
#include <pallas/expr/load_store.hpp>

namespace pl = pallas;

int main() {
  float mem[8] = {};
#ifdef PALLAS_COMPILE_FAIL
  pl::Ref<float, pl::shape<8>, pl::memory_space::hbm> x(mem, pl::shape<8>{});
#else
  pl::Ref<float, pl::shape<8>, pl::memory_space::vmem> x(mem, pl::shape<8>{});
#endif
  auto v = pl::load(x);
  (void)v;
  return 0;
}
