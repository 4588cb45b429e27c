// expect-error: pallas::BlockSpec: the index map must take one index per grid axis \(then the scalar-prefetch refs\)
// With num_scalar_prefetch<1>, index maps take the grid indices and then the prefetched
// ref; this one forgets the ref.
#include <cstdint>

#include <pallas/block_view.hpp>
#include <pallas/pallas_call.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

int main() {
  pl::Array<std::int32_t, 4> order{3, 1, 2, 0};
  pl::Array<float, 4 * 8, 128> x;
  auto copy = [](auto, auto x_ref, auto o_ref) { o_ref[pl::ellipsis] = x_ref[pl::ellipsis]; };
#ifdef PALLAS_COMPILE_FAIL
  auto x_map = [](auto i) { return pl::idx(i, 0); };
#else
  auto x_map = [](auto i, auto order_ref) { return pl::idx(order_ref[i], 0); };
#endif
  auto call = pl::pallas_call(copy, pl::like(x), pl::grid<4>, pltpu::num_scalar_prefetch<1>,
                              pl::in_specs(pl::BlockSpec<8, 128>(x_map)),
                              pl::out_specs(pl::BlockSpec<8, 128>([](auto i, auto) { return pl::idx(i, 0); })));
  call(order, x);
}
