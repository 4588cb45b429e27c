// expect-error: pallas::tpu::load/store: the mask must broadcast to the ref's shape
// A masked load of an (8, 128) ref under a (4, 128) mask: 4 rows neither match 8 nor
// broadcast. The positive twin uses an (8, 1) row mask, which broadcasts.
#include <cstdint>

#include <pallas/expr/creation.hpp>
#include <pallas/tpu/masked_load_store.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

int main() {
  float mem[8 * 128] = {};
  pl::Ref<float, pl::shape<8, 128>, pl::memory_space::vmem> x(mem, pl::shape<8, 128>{});
#ifdef PALLAS_COMPILE_FAIL
  auto v = pltpu::load(x, pl::iota<std::int32_t, pl::shape<4, 128>>(0) < 2);
#else
  auto v = pltpu::load(x, pl::iota<std::int32_t, pl::shape<8, 1>>(0) < 2);
#endif
  return v(0, 0) == 0.0f ? 0 : 1;
}
