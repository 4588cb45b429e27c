// expect-error: pallas::reshape: the new shape must have as many elements as the old one
// Reshaping 8 x 128 = 1024 elements to 8 x 64. The positive twin reshapes to 16 x 64.
#include <pallas/expr/shape_ops.hpp>

namespace pl = pallas;

int main() {
  pl::block<float, pl::shape<8, 128>> x;
#ifdef PALLAS_COMPILE_FAIL
  auto r = pl::reshape<8, 64>(x);
#else
  auto r = pl::reshape<16, 64>(x);
#endif
  return pl::eval(r)(0, 0) == 0.0f ? 0 : 1;
}
