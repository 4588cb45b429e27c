// expect-error: pallas::Ref: element access needs one index per dimension
// Element access with too many indices: `ref(1, 2)` on a rank-1 VMEM ref. The positive
// twin gives one index.
#include <pallas/pallas.hpp>

namespace pl = pallas;

int main() {
  float data[8] = {};
  pl::Ref<float, pl::shape<8>, pl::memory_space::vmem> const ref(data, {});
#ifdef PALLAS_COMPILE_FAIL
  ref(1, 2) = 3.0f;
#else
  ref(1) = 3.0f;
#endif
  return data[1] == 3.0f ? 0 : 1;
}
