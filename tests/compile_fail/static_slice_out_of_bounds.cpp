// expect-error: pallas::Ref::at: a static slice must stay inside its dimension \(start \+ size <= extent\)
// A slice with a static start and size that leaves its dimension: `pl::ds<4>(pl::c<6>)`
// covers [6, 10) of an extent-8 dimension. The positive twin takes [4, 8).
#include <pallas/pallas.hpp>

namespace pl = pallas;

int main() {
  float data[8] = {};
  pl::Ref<float, pl::shape<8>, pl::memory_space::vmem> const ref(data, {});
#ifdef PALLAS_COMPILE_FAIL
  auto const part = ref.at(pl::ds<4>(pl::c<6>));
#else
  auto const part = ref.at(pl::ds<4>(pl::c<4>));
#endif
  return part.data() == data + 4 ? 0 : 1;
}
