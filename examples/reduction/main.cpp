// A reduction that accumulates over the last (ARBITRARY) grid axis: x of shape
// (8, 512, 512) summed over axis 0. The output block stays in VMEM while k runs, is zeroed
// at k == 0 (output blocks are never loaded from HBM), and is written back when (i, j)
// changes. Pallas' pipelining guide's correct_sum_kernel, on two TensorCores.

#include <iostream>

#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

int main() {
  constexpr pl::index_t B = 8, M = 512, N = 512, blk = 256;
  auto x = pl::Array<float, B, M, N>::generate([](auto b, auto i, auto j) {
    return static_cast<float>(1 + (b + i + j) % 3);
  });

  auto sum = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, M, N>>, pl::mesh<pltpu::TensorCoreMesh<"core">>)(
      [](auto x_hbm, auto o_hbm) {
        pltpu::emit_pipeline(
            [](auto x_vmem, auto o_vmem) {
              pl::when(pl::program_id(2) == 0, [&] { o_vmem[pl::ellipsis] = pl::zeros_like(o_vmem); });
              o_vmem[pl::ellipsis] += x_vmem[pl::ellipsis];
            },
            pl::grid<M / blk, N / blk, B>,
            pl::in_specs(pl::BlockSpec<pl::squeezed, blk, blk>([](auto i, auto j, auto k) { return pl::idx(k, i, j); })),
            pl::out_specs(pl::BlockSpec<blk, blk>([](auto i, auto j, auto) { return pl::idx(i, j); })),
            pltpu::core_axis_name<"core">,
            pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::PARALLEL, pltpu::ARBITRARY>)(x_hbm, o_hbm);
      });
  auto result = sum(x);

  auto expected = pl::Array<float, M, N>::generate([&](auto i, auto j) {
    float s = 0;
    for (pl::index_t b = 0; b < B; ++b) s += x(b, i, j);
    return s;
  });
  std::cout << result << '\n';
  bool const ok = result == expected;
  std::cout << (ok ? "ok: matches the loop" : "WRONG") << '\n';
  return ok ? 0 : 1;
}
