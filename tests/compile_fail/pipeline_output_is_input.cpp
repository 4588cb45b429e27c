// expect-error: pallas::kernel: input refs are read-only: an emit_pipeline output cannot be a kernel's input
// A kernel's input ref passed to emit_pipeline as its output. The positive twin passes the
// kernel's output (the input's VMEM blocks stay writable: the body doubles them in place).
#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

int main() {
  auto const x = pl::Array<float, 16, 128>::full(2.0f);
  auto k = pl::kernel(pl::like(x), pl::mesh<pltpu::TensorCoreMesh<"core", 1>>)([](auto x_hbm, [[maybe_unused]] auto o_hbm) {
    auto map = [](auto i) { return pl::idx(i, 0); };
    auto pipeline = pltpu::emit_pipeline(
        [](auto xv, auto ov) {
          xv[pl::ellipsis] = xv[pl::ellipsis] * 2.0f;
          ov[pl::ellipsis] = xv[pl::ellipsis];
        },
        pl::grid<2>, pl::in_specs(pl::BlockSpec<8, 128>(map)), pl::out_specs(pl::BlockSpec<8, 128>(map)));
#ifdef PALLAS_COMPILE_FAIL
    pipeline(x_hbm, x_hbm);
#else
    pipeline(x_hbm, o_hbm);
#endif
  });
  auto const o = k(x);
  return o(15, 127) == 4.0f && x(0, 0) == 2.0f ? 0 : 1;
}
