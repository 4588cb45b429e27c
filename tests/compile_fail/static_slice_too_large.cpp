// expect-error: pallas::Ref::at: a static slice must fit its dimension \(size <= extent\)
// A static slice larger than its dimension, with a run-time start: `pl::ds<16>(i)` on an
// extent-8 dimension can never fit. The positive twin slices 8.
#include <pallas/pallas.hpp>

namespace pl = pallas;

int main(int argc, char**) {
  float data[8] = {};
  pl::Ref<float, pl::shape<8>, pl::memory_space::vmem> const ref(data, {});
  pl::index_t const start = argc - 1;
#ifdef PALLAS_COMPILE_FAIL
  auto const part = ref.at(pl::ds<16>(start));
#else
  auto const part = ref.at(pl::ds<8>(start));
#endif
  return part.data() == data ? 0 : 1;
}
