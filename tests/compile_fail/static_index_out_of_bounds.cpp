// expect-error: pallas::Ref::at: a static index must be inside its dimension \(index < extent\)
// A static index past its dimension: `pl::c<8>` in an extent-8 dimension. The positive
// twin takes the last row, `pl::c<7>`.
#include <pallas/pallas.hpp>

namespace pl = pallas;

int main() {
  float data[8 * 4] = {};
  pl::Ref<float, pl::shape<8, 4>, pl::memory_space::vmem> const ref(data, {});
#ifdef PALLAS_COMPILE_FAIL
  auto const row = ref.at(pl::c<8>);
#else
  auto const row = ref.at(pl::c<7>);
#endif
  return row.data() == data + 28 ? 0 : 1;
}
