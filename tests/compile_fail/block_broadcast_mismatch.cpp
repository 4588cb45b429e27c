// expect-error: pallas::broadcast: operand shapes must agree in every dimension, or be 1
// Adding blocks of shapes (8, 128) and (4, 128): 8 and 4 do not broadcast. The error names
// both shapes. The positive twin adds a (1, 128) row, which broadcasts.
#include <pallas/expr/elementwise.hpp>

namespace pl = pallas;

int main() {
  pl::block<float, pl::shape<8, 128>> x;
#ifdef PALLAS_COMPILE_FAIL
  pl::block<float, pl::shape<4, 128>> y;
#else
  pl::block<float, pl::shape<1, 128>> y;
#endif
  pl::block<float, pl::shape<8, 128>> o = x + y;
  return o(0, 0) == 0.0f ? 0 : 1;
}
