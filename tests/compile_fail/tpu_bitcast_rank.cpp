// expect-error: pallas::tpu::bitcast: the value needs rank >= 2
// Bitcasting a rank-1 value: Pallas does not implement 1-D bitcasts (the second-minor
// dimension is what packs). The positive twin bitcasts a (1, 128) value.
#include <cstdint>

#include <pallas/expr/creation.hpp>
#include <pallas/tpu/bitcast.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

int main() {
#ifdef PALLAS_COMPILE_FAIL
  auto y = pltpu::bitcast<std::int32_t>(pl::ones<float, pl::shape<128>>());
  return y(0) == 0x3F800000 ? 0 : 1;
#else
  auto y = pltpu::bitcast<std::int32_t>(pl::ones<float, pl::shape<1, 128>>());
  return y(0, 0) == 0x3F800000 ? 0 : 1;
#endif
}
