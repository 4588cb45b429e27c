// expect-error: pallas::pallas_call: pass the NumPrefetch scalar-prefetch arrays first, then the inputs
// The scalar-prefetch array passed after the input: the block ranks fit the arguments only
// with the prefetch array last, so the message says where it should go (not that the 2-D
// block does not fit the 1-D "input"). The positive twin passes it first.
#include <pallas/pallas.hpp>

#include <cstdint>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

int main() {
  auto const order = pl::Array<std::int32_t, 4>{3, 0, 2, 1};
  auto x = pl::Array<float, 4 * 8, 128>::generate([](auto i, auto) { return static_cast<float>(i / 8); });
  auto call = pl::pallas_call([](auto, auto x_ref, auto o_ref) { o_ref[pl::ellipsis] = x_ref[pl::ellipsis]; },
                              pl::out_shape<pl::ShapeDtypeStruct<float, 4 * 8, 128>>, pl::grid<4>,
                              pltpu::num_scalar_prefetch<1>,
                              pl::in_specs(pl::BlockSpec<8, 128>([](auto i, auto o) { return pl::idx(o[i], 0); })),
                              pl::out_specs(pl::BlockSpec<8, 128>([](auto i, auto) { return pl::idx(i, 0); })));
#ifdef PALLAS_COMPILE_FAIL
  auto const y = call(x, order);
#else
  auto const y = call(order, x);
#endif
  return y.data()[0] == 3.0f ? 0 : 1;
}
