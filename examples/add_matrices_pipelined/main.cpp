// The quickstart's add_matrices_pipelined, line for line: a pl::kernel on every TensorCore
// whose body runs an emit_pipeline over (128, 128) blocks, the first grid axis split
// across the cores.

#include <iostream>

#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

template <class X>
X add_matrices_pipelined(X const& x, X const& y) {
  auto kernel = pl::kernel(pl::like(x), pl::mesh<pltpu::TensorCoreMesh<"core">>)(
      [](auto x_hbm, auto y_hbm, auto o_hbm) {
        auto add_body = [](auto x_vmem, auto y_vmem, auto o_vmem) {
          o_vmem[pl::ellipsis] = x_vmem[pl::ellipsis] + y_vmem[pl::ellipsis];
        };
        constexpr auto M = decltype(x_hbm)::shape_type::static_extent(0);
        constexpr auto N = decltype(x_hbm)::shape_type::static_extent(1);
        pltpu::emit_pipeline(
            add_body,
            pl::grid<M / 128, N / 128>,
            pl::in_specs(pl::BlockSpec<128, 128>([](auto i, auto j) { return pl::idx(i, j); }),
                         pl::BlockSpec<128, 128>([](auto i, auto j) { return pl::idx(i, j); })),
            pl::out_specs(pl::BlockSpec<128, 128>([](auto i, auto j) { return pl::idx(i, j); })),
            pltpu::core_axis_name<"core">,
            pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::ARBITRARY>)(x_hbm, y_hbm, o_hbm);
      });
  return kernel(x, y);
}

int main() {
  auto x = pl::Array<float, 256, 256>::full(2.0f);
  auto y = pl::Array<float, 256, 256>::full(3.0f);
  auto result = add_matrices_pipelined(x, y);
  std::cout << result << '\n';
  bool const ok = result == pl::Array<float, 256, 256>::full(5.0f);
  std::cout << (ok ? "ok: 5.0 everywhere" : "WRONG") << '\n';
  return ok ? 0 : 1;
}
