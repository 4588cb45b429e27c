// expect-error: pallas::pallas_call: an aliased input and output must have the same shape and dtype
// Input 0 (16 x 128) aliased to output 0 (8 x 128).
#include <pallas/block_view.hpp>
#include <pallas/pallas_call.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

int main() {
  pl::Array<float, 16, 128> x;
  auto copy = [](auto x_ref, auto o_ref) { o_ref[pl::ellipsis] = x_ref[pl::ellipsis]; };
#ifdef PALLAS_COMPILE_FAIL
  using out = pl::ShapeDtypeStruct<float, 8, 128>;
#else
  using out = pl::ShapeDtypeStruct<float, 16, 128>;
#endif
  auto call = pl::pallas_call(copy, pl::out_shape<out>, pl::grid<1>, pl::in_specs(pl::BlockSpec<8, 128>()),
                              pl::out_specs(pl::BlockSpec<8, 128>()), pl::input_output_aliases<pl::alias{0, 0}>);
  call(x);
}
