// expect-error: pallas::tpu::load/store: the mask must have dtype bool
// A masked store whose mask is an int32 block (a mask is a comparison, not 0/1 integers).
// The positive twin compares.
#include <cstdint>

#include <pallas/expr/creation.hpp>
#include <pallas/tpu/masked_load_store.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

int main() {
  float mem[8 * 128] = {};
  pl::Ref<float, pl::shape<8, 128>, pl::memory_space::vmem> o(mem, pl::shape<8, 128>{});
  auto const cols = pl::iota<std::int32_t, pl::shape<8, 128>>(1);
#ifdef PALLAS_COMPILE_FAIL
  pltpu::store(o, 1.0f, cols);
#else
  pltpu::store(o, 1.0f, cols != 0);
#endif
  return mem[1] == 1.0f && mem[0] == 0.0f ? 0 : 1;
}
