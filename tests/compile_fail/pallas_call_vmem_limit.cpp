// expect-error: pallas::pallas_call: the blocks' buffers and the scratch exceed the VMEM budget
// Double-buffered 512 x 512 f32 blocks (x, y, o: 6 MiB) and a 1 MiB scratch accumulator
// over a 4 MiB vmem_limit_bytes.
#include <cstdint>

#include <pallas/block_view.hpp>
#include <pallas/expr/elementwise.hpp>
#include <pallas/pallas_call.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

int main() {
  pl::Array<float, 1024, 1024> x, y;
  constexpr auto ij = [](auto i, auto j) { return pl::idx(i, j); };
  auto add = [](auto x_ref, auto y_ref, auto o_ref, auto acc) {
    acc[pl::ellipsis] = x_ref[pl::ellipsis] + y_ref[pl::ellipsis];
    o_ref[pl::ellipsis] = acc[pl::ellipsis];
  };
#ifdef PALLAS_COMPILE_FAIL
  constexpr std::int64_t limit = std::int64_t{4} << 20;
#else
  constexpr std::int64_t limit = std::int64_t{8} << 20;
#endif
  auto call = pl::pallas_call(add, pl::like(x), pl::grid<2, 2>,
                              pl::in_specs(pl::BlockSpec<512, 512>(ij), pl::BlockSpec<512, 512>(ij)),
                              pl::out_specs(pl::BlockSpec<512, 512>(ij)), pl::scratch_shapes<pltpu::VMEM<float, 512, 512>>,
                              pltpu::compiler_params(pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::PARALLEL>,
                                                     pltpu::vmem_limit_bytes<limit>));
  call(x, y);
}
