// expect-error: pallas::pallas_call: a scalar-prefetch argument cannot be aliased to an output
// input_output_aliases counts the scalar-prefetch arguments too: with one of them, x is
// input 1, and input 0 is the prefetched array.
#include <cstdint>

#include <pallas/block_view.hpp>
#include <pallas/expr/elementwise.hpp>
#include <pallas/pallas_call.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

int main() {
  pl::Array<std::int32_t, 2> visit{0, 1};
  pl::Array<float, 2 * 8, 128> x;
  auto map = [](auto i, auto visit_ref) { return pl::idx(visit_ref[i], 0); };
  auto scale = [](auto, auto x_ref, auto o_ref) { o_ref[pl::ellipsis] = x_ref[pl::ellipsis] * 2.0f; };
#ifdef PALLAS_COMPILE_FAIL
  constexpr pl::alias aliased{0, 0};
#else
  constexpr pl::alias aliased{1, 0};
#endif
  auto call = pl::pallas_call(scale, pl::like(x), pl::grid<2>, pltpu::num_scalar_prefetch<1>,
                              pl::in_specs(pl::BlockSpec<8, 128>(map)), pl::out_specs(pl::BlockSpec<8, 128>(map)),
                              pl::input_output_aliases<aliased>);
  call(visit, x);
}
