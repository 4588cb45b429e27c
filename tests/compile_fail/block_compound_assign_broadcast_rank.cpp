// expect-error: pallas::store: `block op= value` broadcasts the value to the block's shape: the value's rank
// `acc[...] += v` with v of rank 3 over a rank-2 block: the result of numpy's broadcast
// would have rank 3, not the block's shape. The positive twin adds a rank-1 row.
#include <pallas/block_view.hpp>
#include <pallas/expr/creation.hpp>

namespace pl = pallas;

int main() {
  float mem[8 * 128] = {};
  pl::Ref<float, pl::shape<8, 128>, pl::memory_space::vmem> acc(mem, pl::shape<8, 128>{});
#ifdef PALLAS_COMPILE_FAIL
  acc[pl::ellipsis] += pl::ones<float, pl::shape<1, 8, 128>>();
#else
  acc[pl::ellipsis] += pl::ones<float, pl::shape<128>>();
#endif
  return mem[0] == 1.0f ? 0 : 1;
}
