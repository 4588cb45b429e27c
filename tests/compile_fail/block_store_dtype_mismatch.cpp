// expect-error: pallas::store: the value's dtype must be the block's dtype
// Storing a bfloat16 value into a float32 ref (Pallas: "Invalid dtype for swap"). The
// positive twin converts it with pl::astype.
#include <pallas/block_view.hpp>
#include <pallas/expr/astype.hpp>
#include <pallas/expr/creation.hpp>

namespace pl = pallas;

int main() {
  float mem[16] = {};
  pl::Ref<float, pl::shape<2, 8>, pl::memory_space::vmem> o(mem, pl::shape<2, 8>{});
  auto h = pl::full<pl::bfloat16, pl::shape<2, 8>>(1.0f);
#ifdef PALLAS_COMPILE_FAIL
  o[pl::ellipsis] = h;
#else
  o[pl::ellipsis] = pl::astype<float>(h);
#endif
  return mem[0] == 1.0f ? 0 : 1;
}
