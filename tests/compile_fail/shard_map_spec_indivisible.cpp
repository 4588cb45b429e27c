// expect-error: pallas::shard_map: a sharded dimension's size is not a multiple of its mesh axis' size
// Dim 1 (6 elements) split over a 4-chip axis. The positive twin splits 8 elements.
#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

#ifdef PALLAS_COMPILE_FAIL
constexpr pl::index_t cols = 6;
#else
constexpr pl::index_t cols = 8;
#endif

int main() {
  auto k = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 2, 2>>, pl::mesh<pltpu::TensorCoreMesh<"core", 1>>)(
      [](auto, auto) {});
  pl::Array<float, 2, cols> x;
  using spec = pl::P<nullptr, "x">;
  auto const y = pl::shard_map<pl::device_mesh<"x", 4>>(k, pl::shard_in_specs<spec>, pl::shard_out_specs<spec>)(x);
  return y(0, 0) == 0.0f ? 0 : 1;
}
