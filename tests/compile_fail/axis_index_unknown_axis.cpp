// expect-error: pallas::axis_index: no mesh given has this axis
// pl::axis_index<"x", Mesh>() on a core mesh whose only axis is "core": the checked form
// names the mesh, so the missing axis is a compile-time error (the unchecked
// pl::axis_index<"x">() fails at run time). The positive twin asks for "core".
#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

using Mesh = pltpu::TensorCoreMesh<"core", 2>;

int main() {
  auto k = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 2, 128>>, pl::mesh<Mesh>,
                      pl::scratch_types<pltpu::VMEM<float, 128>>)([](auto o, auto row) {
#ifdef PALLAS_COMPILE_FAIL
    pl::index_t const me = pl::axis_index<"x", Mesh>();
#else
    pl::index_t const me = pl::axis_index<"core", Mesh>();
#endif
    for (pl::index_t e = 0; e < 128; ++e) row(e) = static_cast<float>(me);
    pltpu::sync_copy(row, o.at(me));
  });
  return k().data()[128] == 1.0f ? 0 : 1;
}
