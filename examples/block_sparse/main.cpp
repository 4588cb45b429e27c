// The block-sparse DSD matmul of docs/pallas/tpu/sparse.md (dense = sparse @ dense) with
// pl::pallas_call: X is stored as its nonzero (bm, bk) blocks, stacked, plus two
// scalar-prefetched arrays with each block's block-row and block-column. The grid is
// (n / bn, number of blocks); the index maps read the prefetched coordinates from SMEM to
// pick the X block, the Y block (its block-column) and the output block (its block-row).
// Output blocks of empty block-rows are never visited: the output is aliased to an input
// of zeros (input_output_aliases={4: 0}), so they keep those zeros. Compared with the
// dense product of the same matrices (a dense pallas_call matmul) and with a loop.

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <vector>

#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

namespace {

constexpr pl::index_t m = 512, k = 512, n = 256;
constexpr pl::index_t bm = 128, bk = 128, bn = 128;

// dsd_kernel of sparse.md. Blocks arrive sorted by block-row; the accumulator is zeroed at
// the first block of a row and written out at its last.
struct dsd_kernel {
  void operator()(auto idxs_i_ref, auto /*idxs_k_ref*/, auto x_ref, auto y_ref, auto /*zeros*/, auto o_ref,
                  auto accum_scratch) const {
    pl::index_t const blk_idx = pl::program_id(1);
    pl::index_t const num_blocks = pl::num_programs(1);
    bool const is_start = blk_idx == 0;
    bool const changed_blocks = idxs_i_ref[blk_idx] != idxs_i_ref[std::max<pl::index_t>(blk_idx - 1, 0)];
    pl::when(is_start || changed_blocks, [&] { accum_scratch[pl::ellipsis] = pl::zeros_like(accum_scratch); });
    accum_scratch[pl::ellipsis] +=
        pl::dot(x_ref.at(0)[pl::ellipsis], y_ref[pl::ellipsis], pl::preferred_element_type<float>);
    bool const next_block_change =
        idxs_i_ref[blk_idx] != idxs_i_ref[std::min<pl::index_t>(blk_idx + 1, num_blocks - 1)];
    bool const is_end = blk_idx == num_blocks - 1;
    pl::when(is_end || next_block_change, [&] {
      using out_t = typename decltype(o_ref)::value_type;
      o_ref[pl::ellipsis] = pl::astype<out_t>(accum_scratch[pl::ellipsis]);
    });
  }
};

using Blocks = pl::Array<float, pl::dyn, bm, bk>;
using Coords = pl::Array<std::int32_t, pl::dyn>;

pl::Array<float, m, n> dsd_matmul(Coords const& idxs_i, Coords const& idxs_k, Blocks const& x_blocks,
                                  pl::Array<float, k, n> const& y) {
  auto const x_map = [](auto, auto blk_idx, auto, auto) { return pl::idx(blk_idx, 0, 0); };
  auto const y_map = [](auto j, auto blk_idx, auto, auto blk_idxs_k) { return pl::idx(blk_idxs_k[blk_idx], j); };
  auto const o_map = [](auto j, auto blk_idx, auto blk_idxs_i, auto) { return pl::idx(blk_idxs_i[blk_idx], j); };
  auto const zeros = pl::Array<float, m, n>();
  return pl::pallas_call(dsd_kernel{}, pl::out_shape<pl::ShapeDtypeStruct<float, m, n>>, pltpu::num_scalar_prefetch<2>,
                         // The number of blocks is known at run time: a dynamic grid axis.
                         pl::grid<pl::dyn, pl::dyn>(n / bn, x_blocks.extent(0)),
                         pl::in_specs(pl::BlockSpec<1, bm, bk>(x_map), pl::BlockSpec<bk, bn>(y_map),
                                      pl::BlockSpec<bm, bn>(o_map)),  // the zeros, aliased to the output
                         pl::out_specs(pl::BlockSpec<bm, bn>(o_map)), pl::scratch_shapes<pltpu::VMEM<float, bm, bn>>,
                         pl::input_output_aliases<pl::alias{4, 0}>,
                         pltpu::compiler_params(pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::ARBITRARY>))(
      idxs_i, idxs_k, x_blocks, y, zeros);
}

// The dense kernel of matmul.md, for the comparison.
pl::Array<float, m, n> dense_matmul(pl::Array<float, m, k> const& x, pl::Array<float, k, n> const& y) {
  return pl::pallas_call(
      [](auto x_ref, auto y_ref, auto z_ref) {
        pl::when(pl::program_id(2) == 0, [&] { z_ref[pl::ellipsis] = pl::zeros_like(z_ref); });
        z_ref[pl::ellipsis] += pl::dot(x_ref[pl::ellipsis], y_ref[pl::ellipsis]);
      },
      pl::out_shape<pl::ShapeDtypeStruct<float, m, n>>, pl::grid<m / bm, n / bn, k / bk>,
      pl::in_specs(pl::BlockSpec<bm, bk>([](auto i, auto, auto kk) { return pl::idx(i, kk); }),
                   pl::BlockSpec<bk, bn>([](auto, auto j, auto kk) { return pl::idx(kk, j); })),
      pl::out_specs(pl::BlockSpec<bm, bn>([](auto i, auto j, auto) { return pl::idx(i, j); })),
      pltpu::compiler_params(pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::PARALLEL, pltpu::ARBITRARY>))(x, y);
}

}  // namespace

int main() {
  // A 4 x 4 grid of (128, 128) blocks, 5 of them nonzero, in block-row order; block-rows 1
  // and 2 hold one and none. Small integer values keep every sum exact.
  std::vector<std::int32_t> rows, cols;
  for (std::int32_t bi = 0; bi < m / bm; ++bi)
    for (std::int32_t bj = 0; bj < k / bk; ++bj)
      if (bi != 2 && (bi * 7 + bj * 5) % 3 == 0) {
        rows.push_back(bi);
        cols.push_back(bj);
      }
  auto const nnz = static_cast<pl::index_t>(rows.size());
  auto const idxs_i = Coords::from(rows, nnz);
  auto const idxs_k = Coords::from(cols, nnz);
  auto const x_blocks =
      Blocks::generate([](auto q, auto i, auto j) { return static_cast<float>((q * 7 + i * 3 + j) % 9) - 4; }, nnz);
  auto const y =
      pl::Array<float, k, n>::generate([](auto i, auto j) { return static_cast<float>((i + 2 * j) % 7) - 3; });

  // The dense X.
  pl::Array<float, m, k> x;
  for (pl::index_t q = 0; q < nnz; ++q)
    for (pl::index_t i = 0; i < bm; ++i)
      for (pl::index_t j = 0; j < bk; ++j)
        x(rows[static_cast<std::size_t>(q)] * bm + i, cols[static_cast<std::size_t>(q)] * bk + j) = x_blocks(q, i, j);

  std::cout << nnz << " of " << (m / bm) * (k / bk) << " blocks of X are nonzero (density "
            << static_cast<double>(nnz) / static_cast<double>((m / bm) * (k / bk)) << "); block (row, col):";
  for (pl::index_t q = 0; q < nnz; ++q)
    std::cout << " (" << rows[static_cast<std::size_t>(q)] << ", " << cols[static_cast<std::size_t>(q)] << ")";
  std::cout << "\n\n";

  auto const sparse = dsd_matmul(idxs_i, idxs_k, x_blocks, y);
  auto const dense = dense_matmul(x, y);
  std::cout << "sparse kernel:\n" << sparse << "\n\n";

  std::vector<float> loop(static_cast<std::size_t>(m * n), 0.0f);
  for (pl::index_t i = 0; i < m; ++i)
    for (pl::index_t p = 0; p < k; ++p)
      for (pl::index_t j = 0; j < n; ++j)
        loop[static_cast<std::size_t>(i * n + j)] += x.data()[i * k + p] * y.data()[p * n + j];
  pl::index_t loop_mismatches = 0;
  for (pl::index_t e = 0; e < sparse.size(); ++e)
    loop_mismatches += sparse.data()[e] != loop[static_cast<std::size_t>(e)];
  bool const same_as_dense = sparse == dense;
  std::cout << "sparse == dense kernel: " << (same_as_dense ? "yes" : "NO")
            << "; elements differing from the loop: " << loop_mismatches << '\n';
  bool const ok = same_as_dense && loop_mismatches == 0;
  std::cout << (ok ? "ok: the block-sparse product equals the dense one" : "WRONG") << '\n';
  return ok ? 0 : 1;
}
