// expect-error: an output block is revisited after another block
// Grid (3,) writing blocks 0, 1, 0: a revisit, caught at compile time also when no axis is
// PARALLEL on a chip with several cores (core 0 runs the whole grid).
#include <pallas/block_view.hpp>
#include <pallas/expr/creation.hpp>
#include <pallas/pallas_call.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

int main() {
  auto zero = [](auto o_ref) { o_ref[pl::ellipsis] = pl::zeros_like(o_ref); };
#ifdef PALLAS_COMPILE_FAIL
  auto map = [](auto i) { return pl::idx(i % 2, 0); };
#else
  auto map = [](auto i) { return pl::idx(i / 2, 0); };
#endif
  auto call = pl::pallas_call(zero, pl::out_shape<pl::ShapeDtypeStruct<float, 2 * 8, 128>>, pl::grid<3>,
                              pl::out_specs(pl::BlockSpec<8, 128>(map)), pltpu::num_cores<2>);
  call();
}
