// The core_map guide's scalar-prefetch kernel (docs/pallas/tpu/core_map.md, "Scalar
// prefetch": indexed_add_one_kernel): the kernel copies a dynamic column offset from HBM into
// an SMEM scratch buffer before the pipeline starts, and the index maps read it to pick a
// (rows, 512) window of the (rows, 1024) input. The work is split between the cores by hand
// (no core axis, no PARALLEL): each core's index map starts at its own block rows.
//
//   def indexed_add_one_kernel(in_refs, out_refs, i_smem_ref):
//     (x_hbm_ref, i_hbm_ref), o_hbm_ref = in_refs, out_refs
//     in_shape = x_hbm_ref.shape
//     pltpu.sync_copy(i_hbm_ref, i_smem_ref)
//     core_idx = jax.lax.axis_index('core')
//     core_slc_size = in_shape[0] // num_cores
//     i_map = lambda i: core_idx * core_slc_size // 8 + i  # split work among cores
//     j_map = lambda j: i_smem_ref[0] // 128 + j           # use the prefetched offset
//     pltpu.emit_pipeline(
//         add_one_body,                                    # out_vmem[...] = in_vmem[...] + 1
//         grid=(core_slc_size // 8, output_shape[1] // 128),
//         in_specs=[pl.BlockSpec(block_shape=(8, 128), index_map=lambda i, j: (i_map(i), j_map(j)))],
//         out_specs=[pl.BlockSpec(block_shape=(8, 128), index_map=lambda i, j: (i_map(i), j))],
//     )(x_hbm_ref, o_hbm_ref)
//
//   pl.kernel(indexed_add_one_kernel, out_shape=..., mesh=tc_mesh,
//             scratch_shapes=[pltpu.SMEM((1,), jnp.int32)])((x, index))
//
// The guide's input pair (x, index) is passed as two inputs (pl::kernel takes no pytrees).
// One device's shard of the guide's (1024, 1024) input (jax.shard_map over 4 devices is not
// modelled): (256, 1024), with the guide's offset 256 and with 0, 128 and 512 (the last
// window), on 1, 2 and 4 cores; compared with x[:, idx:idx + 512] + 1 from a loop.

#include <cstdint>
#include <iostream>

#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

constexpr pl::index_t rows = 1024 / 4, cols = 1024, out_cols = 512;

template <int Cores>
auto indexed_add_one(pl::Array<float, rows, cols> const& x, pl::Array<std::int32_t, 1> const& index) {
  constexpr pl::index_t core_slc_size = rows / Cores;
  auto add_one_body = [](auto in_vmem, auto out_vmem) { out_vmem[pl::ellipsis] = in_vmem[pl::ellipsis] + 1; };
  auto indexed_add_one_kernel = [add_one_body](auto x_hbm_ref, auto i_hbm_ref, auto o_hbm_ref, auto i_smem_ref) {
    pltpu::sync_copy(i_hbm_ref, i_smem_ref);

    auto const core_idx = pl::axis_index<"core">();
    auto i_map = [core_idx](auto i) { return core_idx * core_slc_size / 8 + i; };  // split work among cores
    auto j_map = [i_smem_ref](auto j) { return i_smem_ref[0] / 128 + j; };         // the prefetched offset

    pltpu::emit_pipeline(
        add_one_body, pl::grid<core_slc_size / 8, out_cols / 128>,
        pl::in_specs(pl::BlockSpec<8, 128>([=](auto i, auto j) { return pl::idx(i_map(i), j_map(j)); })),
        pl::out_specs(pl::BlockSpec<8, 128>([=](auto i, auto j) { return pl::idx(i_map(i), j); })))(x_hbm_ref,
                                                                                                       o_hbm_ref);
  };
  return pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, rows, out_cols>>,
                    pl::mesh<pltpu::TensorCoreMesh<"core", Cores>>,
                    pl::scratch_types<pltpu::SMEM<std::int32_t, 1>>)(indexed_add_one_kernel)(x, index);
}

template <int Cores>
bool check(pl::Array<float, rows, cols> const& x, std::int32_t idx) {
  auto const y = indexed_add_one<Cores>(x, pl::Array<std::int32_t, 1>{idx});
  for (pl::index_t i = 0; i < rows; ++i)
    for (pl::index_t j = 0; j < out_cols; ++j)
      if (y(i, j) != x(i, idx + j) + 1) {
        std::cerr << "indexed_add_one (" << Cores << " cores, idx " << idx << "): y[" << i << ", " << j << "] is "
                  << y(i, j) << ", expected " << x(i, idx + j) + 1 << '\n';
        return false;
      }
  std::cout << "indexed_add_one (" << Cores << " cores, idx " << idx << "): ok, y == x[:, idx:idx + 512] + 1\n";
  return true;
}

int main() {
  auto const x =
      pl::Array<float, rows, cols>::generate([](auto i, auto j) { return static_cast<float>(i * cols + j); });
  bool ok = true;
  for (std::int32_t idx : {256, 0, 128, 512}) {
    ok &= check<1>(x, idx);
    ok &= check<2>(x, idx);
    ok &= check<4>(x, idx);
  }
  return ok ? 0 : 1;
}
