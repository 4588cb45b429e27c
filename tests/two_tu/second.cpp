// The second translation unit of pallas_two_tu_test (see first.cpp).
#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

pl::index_t size_from_second_tu() { return pl::shape<3, pl::dyn>(4).size(); }

pl::detail::device* device_from_second_tu() { return &pl::detail::device::instance(); }

float launch_from_second_tu() {
  auto const out = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 256>>,
                              pl::mesh<pltpu::TensorCoreMesh<"core", 2>>,
                              pl::scratch_types<pltpu::VMEM<float, 128>>)([](auto o_ref, auto v) {
    v[pl::ellipsis] = pl::full_like(v, 42.0f);
    pltpu::sync_copy(v, o_ref.at(pl::ds<128>(pl::axis_index<"core">() * 128)));
  })();
  float sum = 0;
  for (float x : out) sum += x;
  return sum;
}
