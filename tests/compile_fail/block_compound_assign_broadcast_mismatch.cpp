// expect-error: pallas::store: `block op= value` broadcasts the value to the block's shape: every extent
// `acc[...] *= alpha` with alpha of shape (4, 1) over an (8, 128) block: 4 neither equals
// 8 nor is 1. The positive twin rescales by a (8, 1) alpha, which broadcasts.
#include <pallas/block_view.hpp>
#include <pallas/expr/creation.hpp>

namespace pl = pallas;

int main() {
  float mem[8 * 128] = {};
  pl::Ref<float, pl::shape<8, 128>, pl::memory_space::vmem> acc(mem, pl::shape<8, 128>{});
#ifdef PALLAS_COMPILE_FAIL
  acc[pl::ellipsis] *= pl::ones<float, pl::shape<4, 1>>();
#else
  acc[pl::ellipsis] *= pl::ones<float, pl::shape<8, 1>>();
#endif
  return mem[0] == 0.0f ? 0 : 1;
}
