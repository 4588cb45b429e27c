// expect-error: pallas::tpu::bitcast: the second-minor extent times the source bit width
// Packing int8 (3, 128) into int32: 3 rows of 8 bits do not fill whole 32-bit rows. The
// positive twin packs (4, 128) into (1, 128).
#include <cstdint>

#include <pallas/expr/creation.hpp>
#include <pallas/tpu/bitcast.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

int main() {
#ifdef PALLAS_COMPILE_FAIL
  auto y = pltpu::bitcast<std::int32_t>(pl::ones<std::int8_t, pl::shape<3, 128>>());
#else
  auto y = pltpu::bitcast<std::int32_t>(pl::ones<std::int8_t, pl::shape<4, 128>>());
#endif
  return y(0, 0) == 0x01010101 ? 0 : 1;
}
