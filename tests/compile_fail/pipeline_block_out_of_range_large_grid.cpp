// expect-error: pallas::emit_pipeline: an index map returns a block outside its array
// A 64 x 128 grid (8192 steps, two operands: past the plan the compiler computes, within the
// grid it walks for the rules) whose last step asks the input for column block 128 of 128.
#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

int main() {
  constexpr pl::index_t gi = 64, gj = 128;
  pl::Array<float, gi * 8, gj * 128> x;
#ifdef PALLAS_COMPILE_FAIL
  auto x_map = [](auto i, auto j) { return pl::idx(i, i == gi - 1 && j == gj - 1 ? gj : j); };
#else
  auto x_map = [](auto i, auto j) { return pl::idx(i, j); };
#endif
  auto k = pl::kernel(pl::like(x), pl::mesh<pltpu::TensorCoreMesh<"core", 1>>)([&](auto x_hbm, auto o_hbm) {
    pltpu::emit_pipeline([](auto xv, auto ov) { ov[pl::ellipsis] = xv[pl::ellipsis]; }, pl::grid<gi, gj>,
                         pl::in_specs(pl::BlockSpec<8, 128>(x_map)),
                         pl::out_specs(pl::BlockSpec<8, 128>([](auto i, auto j) { return pl::idx(i, j); })))(x_hbm, o_hbm);
  });
  auto o = k(x);
  return o(0, 0) == 0.0f ? 0 : 1;
}
