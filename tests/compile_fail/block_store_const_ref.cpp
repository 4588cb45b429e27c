// expect-error: pallas::block_view: cannot store into a ref of const elements
// A ref of const elements is read-only. The positive twin reads it.
#include <pallas/block_view.hpp>
#include <pallas/expr/reduction.hpp>

namespace pl = pallas;

int main() {
  float mem[4] = {1, 2, 3, 4};
  pl::Ref<float const, pl::shape<4>, pl::memory_space::vmem> c(mem, pl::shape<4>{});
#ifdef PALLAS_COMPILE_FAIL
  c[pl::ellipsis] = 0;
#else
  float const s = pl::sum(c[pl::ellipsis]);
  if (s != 10.0f) return 1;
#endif
  return 0;
}
