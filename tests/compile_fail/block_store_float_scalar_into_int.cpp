// expect-error: pallas::store: a floating-point scalar cannot be stored into an integer
// A weak float scalar takes the dtype of an integer block only through pl::astype. The
// positive twin stores an integer scalar.
#include <cstdint>

#include <pallas/expr/block.hpp>

namespace pl = pallas;

int main() {
  pl::block<std::int32_t, pl::shape<4>> b;
#ifdef PALLAS_COMPILE_FAIL
  b[pl::ellipsis] = 1.5;
#else
  b[pl::ellipsis] = 1;
#endif
  return b(0) == 1 ? 0 : 1;
}
