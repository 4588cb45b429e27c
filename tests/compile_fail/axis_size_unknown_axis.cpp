// expect-error: pallas::axis_size: no mesh given has this axis
// pl::axis_size<"z", ChipMesh, CoreMesh>() in a shard_map over chips on axes "x" and "y" with
// cores on "core": no mesh has "z". The positive twin asks for "y".
#include <pallas/pallas.hpp>

#include <vector>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

using ChipMesh = pl::device_mesh<"x", 2, "y", 2>;
using CoreMesh = pltpu::TensorCoreMesh<"core", 1>;

int main() {
  auto k = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 128>>, pl::mesh<CoreMesh>,
                      pl::scratch_types<pltpu::VMEM<float, 128>>)([](auto o, auto row) {
#ifdef PALLAS_COMPILE_FAIL
    pl::index_t const n = pl::axis_size<"z", ChipMesh, CoreMesh>();
#else
    pl::index_t const n = pl::axis_size<"y", ChipMesh, CoreMesh>();
#endif
    for (pl::index_t e = 0; e < 128; ++e) row(e) = static_cast<float>(n);
    pltpu::sync_copy(row, o);
  });
  std::vector<pl::Array<float, 128>> outs = pl::shard_map<ChipMesh>(k)();
  return outs.size() == 4 && outs[3].data()[0] == 2.0f ? 0 : 1;
}
