// A pallas_call matmul in its own translation unit. Under separate compilation this TU
// holds the kernel only: the runtime it launches on, and pl::dot's GEMM, were compiled
// once, in the pallas::runtime library.
#include "kernels.hpp"

namespace pl = pallas;
namespace pltpu = pallas::tpu;

namespace example {

matrix matmul(matrix const& x, matrix const& y) {
  auto body = [](auto x_ref, auto y_ref, auto z_ref, auto acc_ref) {
    pl::when(pl::program_id(2) == 0, [&] { acc_ref[pl::ellipsis] = pl::zeros_like(acc_ref); });
    acc_ref[pl::ellipsis] += pl::dot(x_ref[pl::ellipsis], y_ref[pl::ellipsis]);
    pl::when(pl::program_id(2) == pl::num_programs(2) - 1, [&] { z_ref[pl::ellipsis] = acc_ref[pl::ellipsis]; });
  };
  return pl::pallas_call(body, pl::out_shape<pl::ShapeDtypeStruct<float, 256, 256>>, pl::grid<2, 2, 2>,
                         pl::in_specs(pl::BlockSpec<128, 128>([](auto i, auto, auto k) { return pl::idx(i, k); }),
                                      pl::BlockSpec<128, 128>([](auto, auto j, auto k) { return pl::idx(k, j); })),
                         pl::out_specs(pl::BlockSpec<128, 128>([](auto i, auto j, auto) { return pl::idx(i, j); })),
                         pl::scratch_shapes<pltpu::VMEM<float, 128, 128>>,
                         pltpu::compiler_params(pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::PARALLEL,
                                                                           pltpu::ARBITRARY>))(x, y);
}

}  // namespace example
