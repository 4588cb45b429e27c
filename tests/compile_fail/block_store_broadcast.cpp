// expect-error: pallas::store: the stored value must have the block's shape
// `o[...] = v` with v of shape (8, 1) into an (8, 128) ref: plain stores do not broadcast
// (as Pallas' ref store), only compound assignments do. The positive twin writes the same
// value with `+=` into a zeroed block, which broadcasts.
#include <pallas/block_view.hpp>
#include <pallas/expr/creation.hpp>

namespace pl = pallas;

int main() {
  float mem[8 * 128] = {};
  pl::Ref<float, pl::shape<8, 128>, pl::memory_space::vmem> o(mem, pl::shape<8, 128>{});
#ifdef PALLAS_COMPILE_FAIL
  o[pl::ellipsis] = pl::ones<float, pl::shape<8, 1>>();
#else
  o[pl::ellipsis] += pl::ones<float, pl::shape<8, 1>>();
#endif
  return mem[127] == 1.0f ? 0 : 1;
}
