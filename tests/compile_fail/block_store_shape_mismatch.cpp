// expect-error: pallas::store: the stored value must have the block's shape
// Storing a (4, 128) value into an (8, 128) VMEM ref: stores do not broadcast. The
// positive twin stores a value of the ref's shape.
#include <pallas/block_view.hpp>
#include <pallas/expr/creation.hpp>

namespace pl = pallas;

int main() {
  float mem[8 * 128] = {};
  pl::Ref<float, pl::shape<8, 128>, pl::memory_space::vmem> o(mem, pl::shape<8, 128>{});
#ifdef PALLAS_COMPILE_FAIL
  o[pl::ellipsis] = pl::zeros<float, pl::shape<4, 128>>();
#else
  o[pl::ellipsis] = pl::zeros<float, pl::shape<8, 128>>();
#endif
  return mem[0] == 0.0f ? 0 : 1;
}
