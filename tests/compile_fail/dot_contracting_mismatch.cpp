// expect-error: pallas::dot: the contracting dimensions must have equal extents
// (8, 128) @ (64, 32): K is 128 on the left and 64 on the right. The positive twin uses
// a (128, 32) right operand.
#include <pallas/dot.hpp>

namespace pl = pallas;

int main() {
  pl::block<float, pl::shape<8, 128>> x;
#ifdef PALLAS_COMPILE_FAIL
  pl::block<float, pl::shape<64, 32>> y;
#else
  pl::block<float, pl::shape<128, 32>> y;
#endif
  pl::block<float, pl::shape<8, 32>> acc;
  acc[pl::ellipsis] += pl::dot(x, y);
  return acc(0, 0) == 0.0f ? 0 : 1;
}
