// expect-error: an output block is revisited after another block
// An output aliased to an input is still written back block by block and its blocks are
// not reloaded: revisiting one after another block is the same error as without the alias
// (at run time it always was; the compile-time rule skipped aliased outputs).
#include <pallas/block_view.hpp>
#include <pallas/expr/elementwise.hpp>
#include <pallas/pallas_call.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

int main() {
  pl::Array<float, 2 * 8, 128> x;
  auto add_one = [](auto x_ref, auto o_ref) { o_ref[pl::ellipsis] = x_ref[pl::ellipsis] + 1.0f; };
#ifdef PALLAS_COMPILE_FAIL
  auto map = [](auto i) { return pl::idx(i % 2, 0); };  // blocks 0, 1, 0
#else
  auto map = [](auto i) { return pl::idx(i / 2, 0); };  // blocks 0, 0, 1
#endif
  auto call = pl::pallas_call(add_one, pl::like(x), pl::grid<3>, pl::in_specs(pl::BlockSpec<8, 128>(map)),
                              pl::out_specs(pl::BlockSpec<8, 128>(map)), pl::input_output_aliases<pl::alias{0, 0}>,
                              pltpu::num_cores<1>);
  call(x);
}
