// expect-error: pallas::broadcast_to: every extent of the operand must be the target's or 1
// Broadcasting (3, 4) to (3, 5). The positive twin broadcasts (3, 1).
#include <pallas/expr/shape_ops.hpp>

namespace pl = pallas;

int main() {
#ifdef PALLAS_COMPILE_FAIL
  pl::block<float, pl::shape<3, 4>> x;
#else
  pl::block<float, pl::shape<3, 1>> x;
#endif
  auto b = pl::eval(pl::broadcast_to<3, 5>(x));
  return b(0, 0) == 0.0f ? 0 : 1;
}
