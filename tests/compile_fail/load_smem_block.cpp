// expect-error: pallas::load: SMEM refs give and take scalars only
// pl::load of a whole SMEM ref. The positive twin loads one element.
#include <cstdint>

#include <pallas/expr/load_store.hpp>

namespace pl = pallas;

int main() {
  std::int32_t mem[8] = {};
  pl::Ref<std::int32_t, pl::shape<8>, pl::memory_space::smem> s(mem, pl::shape<8>{});
#ifdef PALLAS_COMPILE_FAIL
  auto v = pl::load(s);
#else
  auto v = pl::load(s, 3);
#endif
  (void)v;
  return 0;
}
