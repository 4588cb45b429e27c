// grid_blockspec.md's `show_program_ids`, line for line: a kernel that fills its output
// block with its program ids (100 i + 10 j + k), run over
//   1. a grid of blocks that tile the output exactly,
//   2. a grid whose last blocks hang over the array's edge (ragged: the part outside is
//      dropped when the block is written back),
//   3. a grid with a third axis that revisits each block on 10 consecutive steps (the
//      block is written back once, after its last visit: the last write wins).
// The (2, 3) blocks are not TPU tiles (8 x 128), as in the doc's interpret-mode runs, hence
// pltpu::no_tiling_check. Each result is printed and checked against a loop.

#include <cstdint>
#include <iostream>

#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

namespace {

// The kernel: every element of the block is the grid point written in base 10.
void program_ids_kernel(auto o_ref, int grid_rank) {
  std::int32_t axes = 0;
  for (int axis = 0; axis < grid_rank; ++axis) {
    std::int32_t scale = 1;
    for (int p = axis + 1; p < grid_rank; ++p) scale *= 10;
    axes += static_cast<std::int32_t>(pl::program_id(axis)) * scale;
  }
  o_ref[pl::ellipsis] = pl::full_like(o_ref, axes);
}

template <pl::index_t M, pl::index_t N, class Grid, class Map>
pl::Array<std::int32_t, M, N> show_program_ids(Grid grid, Map index_map) {
  auto res = pl::pallas_call([](auto o_ref) { program_ids_kernel(o_ref, static_cast<int>(Grid::rank())); },
                             pl::out_shape<pl::ShapeDtypeStruct<std::int32_t, M, N>>, grid,
                             pl::out_specs(pl::BlockSpec<2, 3>(index_map)), pltpu::no_tiling_check)();
  std::cout << res << "\n\n";
  return res;
}

// What element (r, c) must hold: the program ids of the last step that wrote its block.
template <pl::index_t M, pl::index_t N, class Expected>
bool check(pl::Array<std::int32_t, M, N> const& res, Expected expected) {
  for (pl::index_t r = 0; r < M; ++r)
    for (pl::index_t c = 0; c < N; ++c)
      if (res(r, c) != expected(r / 2, c / 3)) {
        std::cout << "WRONG at (" << r << ", " << c << "): " << res(r, c) << ", expected " << expected(r / 2, c / 3)
                  << '\n';
        return false;
      }
  return true;
}

}  // namespace

int main() {
  bool ok = true;

  std::cout << "x_shape=(8, 6), block_shape=(2, 3), grid=(4, 2):\n";
  auto const tiled = show_program_ids<8, 6>(pl::grid<4, 2>, [](auto i, auto j) { return pl::idx(i, j); });
  ok &= check(tiled, [](auto i, auto j) { return 10 * i + j; });

  std::cout << "x_shape=(7, 5), block_shape=(2, 3), grid=(4, 2): the last block row and column are cut\n";
  auto const ragged = show_program_ids<7, 5>(pl::grid<4, 2>, [](auto i, auto j) { return pl::idx(i, j); });
  ok &= check(ragged, [](auto i, auto j) { return 10 * i + j; });

  std::cout << "x_shape=(8, 6), block_shape=(2, 3), grid=(4, 2, 10), index_map=(i, j, k) -> (i, j):\n";
  auto const revisited = show_program_ids<8, 6>(pl::grid<4, 2, 10>, [](auto i, auto j, auto) { return pl::idx(i, j); });
  ok &= check(revisited, [](auto i, auto j) { return 100 * i + 10 * j + 9; });

  std::cout << (ok ? "ok: every block holds the program ids of its last visit" : "WRONG") << '\n';
  return ok ? 0 : 1;
}
