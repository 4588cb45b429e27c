// expect-error: pallas::dot_general: each operand needs one contracting dimension
// A contracting dimension that is also the batch dimension. The positive twin contracts
// dimension 2 and batches dimension 0.
#include <pallas/dot.hpp>

namespace pl = pallas;

int main() {
  pl::block<float, pl::shape<2, 8, 16>> q;
  pl::block<float, pl::shape<2, 4, 16>> k;
#ifdef PALLAS_COMPILE_FAIL
  auto s = pl::dot_general(q, k, pl::contracting_dims<0, 2>, pl::batch_dims<0, 0>);
#else
  auto s = pl::dot_general(q, k, pl::contracting_dims<2, 2>, pl::batch_dims<0, 0>);
#endif
  return s.eval()(0, 0, 0) == 0.0f ? 0 : 1;
}
