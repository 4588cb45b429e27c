// expect-error: pallas::concatenate: operands must have equal extents except along the axis
// Concatenating (2, 3) and (4, 5) along axis 1: 2 != 4. The positive twin uses (2, 5).
#include <pallas/expr/shape_ops.hpp>

namespace pl = pallas;

int main() {
  pl::block<float, pl::shape<2, 3>> a;
#ifdef PALLAS_COMPILE_FAIL
  pl::block<float, pl::shape<4, 5>> b;
#else
  pl::block<float, pl::shape<2, 5>> b;
#endif
  auto c = pl::concatenate<1>(a, b);
  return c(0, 0) == 0.0f ? 0 : 1;
}
