// expect-error: pallas::store: the value's dtype must be the block's dtype
// `acc_i32[...] += x_f32[...]` would make the block float32 (promote(int32, float32)).
// The positive twin adds an int32 value.
#include <cstdint>

#include <pallas/expr/block.hpp>
#include <pallas/expr/creation.hpp>

namespace pl = pallas;

int main() {
  pl::block<std::int32_t, pl::shape<4>> acc;
#ifdef PALLAS_COMPILE_FAIL
  acc[pl::ellipsis] += pl::arange<float, 4>();
#else
  acc[pl::ellipsis] += pl::arange<std::int32_t, 4>();
#endif
  return acc(3) == 3 ? 0 : 1;
}
