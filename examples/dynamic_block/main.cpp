// The TPU pipelining guide's dynamic block shapes (docs/pallas/tpu/pipelining.md, "Dynamic
// Block Shapes": dynamic_block_example_kernel): an emit_pipeline inside a pallas_call whose
// operands stay in HBM (pl::ANY) copies x to the output in chunks of run-time sizes. The chunk
// bounds are copied into SMEM scratch first; each index map returns pl::ds(start, size) for a
// pl::BoundedSlice(8) dimension, so the body sees an 8-row buffer of which the first `size`
// rows were fetched (and only those are written back).
//
//   def dynamic_block_example_kernel(x_hbm, slices_hbm, o_hbm, slices_smem):
//     pltpu.sync_copy(slices_hbm, slices_smem)
//     def pipeline_body(x_vmem, o_vmem):
//       o_vmem[...] = x_vmem[...]
//     def index_map(i):
//       start = slices_smem[i, 0]
//       size = slices_smem[i, 1] - slices_smem[i, 0]
//       return (pl.ds(start, size), 0)
//     block_spec = pl.BlockSpec(block_shape=(pl.BoundedSlice(8), 128), index_map=index_map)
//     pltpu.emit_pipeline(pipeline_body, grid=(slices.shape[0],),
//                         in_specs=[block_spec], out_specs=block_spec)(x_hbm, o_hbm)
//
//   slices = jnp.array([[0, 2], [2, 3], [3, 5], [5, 8]], dtype=jnp.int32)
//
// Run with the guide's chunks, then with chunks of every size from 1 to 8 over 36 rows, and
// with a body that doubles the rows (so a row copied by another chunk, or not at all, shows).
// Each result is compared with a loop.

#include <cstdint>
#include <iostream>
#include <string>

#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

// The guide's kernel for `Rows` rows and `Chunks` chunks; `scale` multiplies the copied rows.
template <pl::index_t Rows, pl::index_t Chunks>
pl::Array<float, Rows, 128> copy_in_chunks(pl::Array<float, Rows, 128> const& x,
                                           pl::Array<std::int32_t, Chunks, 2> const& slices, float scale) {
  auto hbm_block_spec = pl::BlockSpec<>(pl::in_memory<pl::ANY>);
  return pl::pallas_call(
      [scale](auto x_hbm, auto slices_hbm, auto o_hbm, auto slices_smem) {
        pltpu::sync_copy(slices_hbm, slices_smem);  // copy the chunk bounds into SMEM
        auto pipeline_body = [scale](auto x_vmem, auto o_vmem) {
          o_vmem[pl::ellipsis] = x_vmem[pl::ellipsis] * scale;
        };
        auto index_map = [slices_smem](auto i) {
          pl::index_t const start = slices_smem(i, 0);
          pl::index_t const size = slices_smem(i, 1) - slices_smem(i, 0);
          return std::tuple{pl::ds(start, size), pl::index_t{0}};
        };
        auto block_spec = pl::BlockSpec<pl::BoundedSlice(8), 128>(index_map);
        pltpu::emit_pipeline(pipeline_body, pl::grid<Chunks>, pl::in_specs(block_spec),
                             pl::out_specs(block_spec))(x_hbm, o_hbm);
      },
      pl::in_specs(hbm_block_spec, hbm_block_spec), pl::out_specs(hbm_block_spec),
      pl::out_shape<pl::ShapeDtypeStruct<float, Rows, 128>>,
      pl::scratch_shapes<pltpu::SMEM<std::int32_t, Chunks, 2>>)(x, slices);
}

template <pl::index_t Rows, pl::index_t Chunks>
bool check(std::string const& what, pl::Array<float, Rows, 128> const& x,
           pl::Array<std::int32_t, Chunks, 2> const& slices, float scale) {
  auto const out = copy_in_chunks(x, slices, scale);
  for (pl::index_t i = 0; i < Rows; ++i)
    for (pl::index_t j = 0; j < 128; ++j)
      if (out(i, j) != x(i, j) * scale) {
        std::cerr << "dynamic_block (" << what << "): out[" << i << ", " << j << "] is " << out(i, j) << ", expected "
                  << x(i, j) * scale << '\n';
        return false;
      }
  std::cout << "dynamic_block (" << what << "): ok, " << Rows << " rows in " << Chunks << " chunks\n";
  return true;
}

int main() {
  bool ok = true;

  // The guide's run: 8 rows in chunks of 2, 1, 2 and 3 rows.
  auto x = pl::Array<float, 8, 128>::generate([](auto i, auto j) { return static_cast<float>(i * 1000 + j); });
  pl::Array<std::int32_t, 4, 2> slices{0, 2, 2, 3, 3, 5, 5, 8};
  ok &= check("the guide's slices", x, slices, 1.0f);
  ok &= check("the guide's slices, doubled", x, slices, 2.0f);

  // 36 rows in chunks of 1, 2, ..., 8 rows (the last one the bound): 1 + 2 + ... + 8 = 36.
  auto y = pl::Array<float, 36, 128>::generate([](auto i, auto j) { return static_cast<float>(i * 1000 + j) - 0.5f; });
  pl::Array<std::int32_t, 8, 2> chunks;
  std::int32_t start = 0;
  for (pl::index_t c = 0; c < 8; ++c) {
    chunks(c, 0) = start;
    start += static_cast<std::int32_t>(c + 1);
    chunks(c, 1) = start;
  }
  ok &= check("chunks of 1 to 8 rows, doubled", y, chunks, 2.0f);

  return ok ? 0 : 1;
}
