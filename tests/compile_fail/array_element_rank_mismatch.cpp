// expect-error: pallas::Array: element access needs one index per dimension
// Element access with too many indices: `a(1, 2)` on a rank-1 Array. The positive twin
// gives one index per dimension.
#include <pallas/pallas.hpp>

namespace pl = pallas;

int main() {
  pl::Array<float, 8> a;
#ifdef PALLAS_COMPILE_FAIL
  a(1, 2) = 3.0f;
#else
  a(1) = 3.0f;
#endif
  return a(1) == 3.0f ? 0 : 1;
}
