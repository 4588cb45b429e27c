// expect-error: pallas::Ref::at: more indices than the ref has dimensions
// `.at` with more indexers than the ref's rank: two indices into a rank-1 ref. The
// positive twin gives one.
#include <pallas/pallas.hpp>

namespace pl = pallas;

int main() {
  float data[8] = {};
  pl::Ref<float, pl::shape<8>, pl::memory_space::vmem> const ref(data, {});
#ifdef PALLAS_COMPILE_FAIL
  auto const one = ref.at(1, 2);
#else
  auto const one = ref.at(1);
#endif
  return one.data() == data + 1 ? 0 : 1;
}
