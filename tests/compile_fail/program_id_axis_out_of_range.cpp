// expect-error: pallas::program_id: the grid has no such axis
// pl::program_id<2>(grid) on a 2-D grid: the checked form names the grid, so the missing
// axis is a compile-time error (pl::program_id(2) fails at run time). The positive twin
// asks for axis 1.
#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

constexpr auto grid = pl::grid<2, 4>;

int main() {
  pl::Array<float, 16, 512> x;
  for (int i = 0; i < 16 * 512; ++i) x.data()[i] = 1.0f;
  auto call = pl::pallas_call(
      [](auto x_ref, auto o_ref) {
#ifdef PALLAS_COMPILE_FAIL
        pl::index_t const j = pl::program_id<2>(grid);
#else
        pl::index_t const j = pl::program_id<1>(grid);
#endif
        o_ref[pl::ellipsis] = x_ref[pl::ellipsis] + static_cast<float>(j);
      },
      pl::out_shape<pl::ShapeDtypeStruct<float, 16, 512>>, grid,
      pl::in_specs(pl::BlockSpec<8, 128>([](auto i, auto j) { return pl::idx(i, j); })),
      pl::out_specs(pl::BlockSpec<8, 128>([](auto i, auto j) { return pl::idx(i, j); })));
  auto const y = call(x);
  return y.data()[128] == 2.0f ? 0 : 1;
}
