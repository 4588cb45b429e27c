// expect-error: pallas::pallas_call: the kernel must take the scalar-prefetch refs, one block ref per input and output, then the scratch refs, in that order
// A kernel that forgets its scratch ref.
#include <pallas/block_view.hpp>
#include <pallas/pallas_call.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

int main() {
  pl::Array<float, 256, 256> x;
  constexpr auto ij = [](auto i, auto j) { return pl::idx(i, j); };
#ifdef PALLAS_COMPILE_FAIL
  auto kernel = [](auto x_ref, auto o_ref) { o_ref[pl::ellipsis] = x_ref[pl::ellipsis]; };
#else
  auto kernel = [](auto x_ref, auto o_ref, auto tmp) {
    tmp[pl::ellipsis] = x_ref[pl::ellipsis];
    o_ref[pl::ellipsis] = tmp[pl::ellipsis];
  };
#endif
  auto call = pl::pallas_call(kernel, pl::like(x), pl::grid<2, 2>, pl::in_specs(pl::BlockSpec<128, 128>(ij)),
                              pl::out_specs(pl::BlockSpec<128, 128>(ij)), pl::scratch_shapes<pltpu::VMEM<float, 128, 128>>);
  call(x);
}
