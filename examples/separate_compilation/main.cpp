// Separate compilation: kernels in several translation units that share one runtime,
// compiled once (CMake: link pallas::runtime; without CMake, one .cpp file that includes
// <pallas/runtime_source.hpp>, every file built with -DPALLAS_SEPARATE_COMPILATION). This
// TU runs a pipelined add; kernels.cpp a matmul. Each is checked against a plain loop.

#include <cmath>
#include <cstdio>

#include "kernels.hpp"

namespace pl = pallas;
namespace pltpu = pallas::tpu;

namespace {

example::matrix add(example::matrix const& x, example::matrix const& y) {
  return pl::kernel(pl::like(x), pl::mesh<pltpu::TensorCoreMesh<"core">>)([](auto x_hbm, auto y_hbm, auto o_hbm) {
    pltpu::emit_pipeline([](auto a, auto b, auto o) { o[pl::ellipsis] = a[pl::ellipsis] + b[pl::ellipsis]; },
                         pl::grid<2, 2>,
                         pl::in_specs(pl::BlockSpec<128, 128>([](auto i, auto j) { return pl::idx(i, j); }),
                                      pl::BlockSpec<128, 128>([](auto i, auto j) { return pl::idx(i, j); })),
                         pl::out_specs(pl::BlockSpec<128, 128>([](auto i, auto j) { return pl::idx(i, j); })),
                         pltpu::core_axis_name<"core">,
                         pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::ARBITRARY>)(x_hbm, y_hbm, o_hbm);
  })(x, y);
}

}  // namespace

int main() {
  example::matrix x, y;
  for (pl::index_t i = 0; i < 256; ++i)
    for (pl::index_t j = 0; j < 256; ++j) {
      x(i, j) = static_cast<float>((i * 7 + j * 3) % 17) / 8.0f - 1.0f;
      y(i, j) = static_cast<float>((i * 5 + j * 11) % 13) / 6.0f - 1.0f;
    }
  auto const sum = add(x, y);
  auto const product = example::matmul(x, y);
  double add_error = 0, matmul_error = 0;
  for (pl::index_t i = 0; i < 256; ++i)
    for (pl::index_t j = 0; j < 256; ++j) {
      add_error = std::fmax(add_error, std::fabs(sum(i, j) - (x(i, j) + y(i, j))));
      double reference = 0;
      for (pl::index_t p = 0; p < 256; ++p) reference += double(x(i, p)) * double(y(p, j));
      matmul_error = std::fmax(matmul_error, std::fabs(product(i, j) - reference));
    }
  bool const ok = add_error == 0 && matmul_error < 1e-3;
  std::printf("add: max error %g; matmul: max error %g against the loops\n%s\n", add_error, matmul_error,
              ok ? "ok: both kernels match" : "WRONG");
  return ok ? 0 : 1;
}
