// expect-error: pallas::axis: an axis appears twice
// jnp.transpose(x, (0, 0, 1)) is not a permutation. The positive twin uses (2, 0, 1).
#include <pallas/expr/shape_ops.hpp>

namespace pl = pallas;

int main() {
  pl::block<float, pl::shape<2, 3, 4>> x;
#ifdef PALLAS_COMPILE_FAIL
  auto t = pl::transpose<0, 0, 1>(x);
#else
  auto t = pl::transpose<2, 0, 1>(x);
#endif
  return pl::eval(t)(0, 0, 0) == 0.0f ? 0 : 1;
}
