// expect-error: pallas::precision: give one precision, or one per operand
// precision=(HIGHEST, HIGHEST, HIGHEST): a product has two operands. The positive twin
// gives one per operand.
#include <pallas/dot.hpp>
#include <pallas/expr/creation.hpp>

namespace pl = pallas;
using P = pl::Precision;

int main() {
  auto x = pl::ones<float, pl::shape<8, 8>>();
#ifdef PALLAS_COMPILE_FAIL
  pl::block<float, pl::shape<8, 8>> y = pl::dot(x, x, pl::precision<P::HIGHEST, P::HIGHEST, P::HIGHEST>);
#else
  pl::block<float, pl::shape<8, 8>> y = pl::dot(x, x, pl::precision<P::HIGHEST, P::HIGHEST>);
#endif
  return y(0, 0) == 8.0f ? 0 : 1;
}
