// expect-error: pallas::pallas_call: one in_spec per input \(in_specs == inputs\)
// Two inputs, one in_spec.
#include <pallas/block_view.hpp>
#include <pallas/expr/elementwise.hpp>
#include <pallas/pallas_call.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

int main() {
  pl::Array<float, 256, 256> x, y;
  constexpr auto ij = [](auto i, auto j) { return pl::idx(i, j); };
  auto add = [](auto x_ref, auto y_ref, auto o_ref) { o_ref[pl::ellipsis] = x_ref[pl::ellipsis] + y_ref[pl::ellipsis]; };
#ifdef PALLAS_COMPILE_FAIL
  auto call = pl::pallas_call(add, pl::like(x), pl::grid<2, 2>, pl::in_specs(pl::BlockSpec<128, 128>(ij)),
                              pl::out_specs(pl::BlockSpec<128, 128>(ij)));
#else
  auto call = pl::pallas_call(add, pl::like(x), pl::grid<2, 2>,
                              pl::in_specs(pl::BlockSpec<128, 128>(ij), pl::BlockSpec<128, 128>(ij)),
                              pl::out_specs(pl::BlockSpec<128, 128>(ij)));
#endif
  auto o = call(x, y);  // a failed call still returns arrays: no second error here
  return o(0, 0) > 0.0f ? 0 : 1;
}
