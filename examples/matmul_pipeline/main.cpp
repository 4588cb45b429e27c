// A matmul inside pl::kernel: emit_pipeline over (m/bm, n/bn, k/bk) with an f32
// accumulator in VMEM scratch, zeroed at k == 0 and written to the output block at the
// last k. The (i, j) axes are PARALLEL and split across the TensorCores.

#include <cmath>
#include <iostream>

#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

int main() {
  constexpr pl::index_t m = 512, k = 384, n = 256, bm = 128, bk = 128, bn = 128;
  auto x = pl::Array<float, m, k>::generate([](auto i, auto j) { return static_cast<float>((i * 7 + j * 3) % 11) - 5; });
  auto y = pl::Array<float, k, n>::generate([](auto i, auto j) { return static_cast<float>((i * 5 + j) % 13) - 6; });

  auto matmul = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, m, n>>, pl::mesh<pltpu::TensorCoreMesh<"core">>,
                           pl::scratch_types<pltpu::VMEM<float, bm, bn>>)([](auto x_hbm, auto y_hbm, auto z_hbm, auto acc) {
    pltpu::emit_pipeline(
        [acc](auto x_vmem, auto y_vmem, auto z_vmem) {
          pl::when(pl::program_id(2) == 0, [&] { acc[pl::ellipsis] = pl::zeros_like(acc); });
          acc[pl::ellipsis] += pl::dot(x_vmem[pl::ellipsis], y_vmem[pl::ellipsis]);
          pl::when(pl::program_id(2) == pl::num_programs(2) - 1, [&] { z_vmem[pl::ellipsis] = acc[pl::ellipsis]; });
        },
        pl::grid<m / bm, n / bn, k / bk>,
        pl::in_specs(pl::BlockSpec<bm, bk>([](auto i, auto, auto kk) { return pl::idx(i, kk); }),
                     pl::BlockSpec<bk, bn>([](auto, auto j, auto kk) { return pl::idx(kk, j); })),
        pl::out_specs(pl::BlockSpec<bm, bn>([](auto i, auto j, auto) { return pl::idx(i, j); })),
        pltpu::core_axis_name<"core">,
        pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::PARALLEL, pltpu::ARBITRARY>)(x_hbm, y_hbm, z_hbm);
  });
  auto z = matmul(x, y);

  auto expected = pl::Array<float, m, n>::generate([&](auto i, auto j) {
    float s = 0;
    for (pl::index_t p = 0; p < k; ++p) s += x(i, p) * y(p, j);
    return s;
  });
  std::cout << z << '\n';
  bool const ok = pl::allclose(z, expected, 1e-5, 1e-3);
  std::cout << (ok ? "ok: matches the naive loop" : "WRONG") << '\n';
  return ok ? 0 : 1;
}
