// expect-error: pallas::axis: every axis must be in \[-rank, rank\)
// jnp.sum(x, axis=2) on a rank-2 block. The positive twin reduces axis -1.
#include <pallas/expr/reduction.hpp>

namespace pl = pallas;

int main() {
  pl::block<float, pl::shape<8, 128>> x;
#ifdef PALLAS_COMPILE_FAIL
  auto s = pl::sum(x, pl::axis<2>);
#else
  auto s = pl::sum(x, pl::axis<-1>);
#endif
  (void)s;
  return 0;
}
