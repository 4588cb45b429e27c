// expect-error: pallas::bitwise: &, \|, \^, ~, <<, >> need integer or bool operands
// `&` on float32 blocks. The positive twin uses int32 blocks.
#include <cstdint>

#include <pallas/expr/elementwise.hpp>

namespace pl = pallas;

int main() {
#ifdef PALLAS_COMPILE_FAIL
  pl::block<float, pl::shape<4>> x;
#else
  pl::block<std::int32_t, pl::shape<4>> x;
#endif
  auto y = pl::eval(x & x);
  return y(0) == 0 ? 0 : 1;
}
