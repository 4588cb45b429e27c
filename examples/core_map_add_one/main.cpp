// The core_map guide's pipelined kernel (docs/pallas/tpu/core_map.md, "Pipelining with
// core_map": add_one_kernel): a kernel on every TensorCore runs an emit_pipeline over
// (8, 128) blocks whose first grid axis is PARALLEL, so the pipeline splits it across the
// cores; emit_pipeline allocates its own VMEM buffers (the kernel has no scratch).
//
//   def add_one_body(in_vmem, out_vmem):
//     out_vmem[...] = in_vmem[...] + 1
//
//   def add_one_kernel(x_hbm_ref, o_hbm_ref):
//     in_shape = x_hbm_ref.shape
//     pltpu.emit_pipeline(
//         add_one_body,
//         grid=(in_shape[0] // 8, in_shape[1] // 128),
//         in_specs=[pl.BlockSpec(block_shape=(8, 128), index_map=lambda i, j: (i, j))],
//         out_specs=[pl.BlockSpec(block_shape=(8, 128), index_map=lambda i, j: (i, j))],
//         core_axis_name='core',
//         dimension_semantics=(pltpu.PARALLEL, pltpu.ARBITRARY),
//     )(x_hbm_ref, o_hbm_ref)
//
//   pl.kernel(add_one_kernel, out_shape=x, mesh=tc_mesh, scratch_shapes=[])(x)
//
// One device's shard of the guide's (1024, 1024) input (jax.shard_map over 4 devices is not
// modelled): (256, 1024), 32 x 8 blocks, on 1, 2 and 4 cores; and (40, 256), whose 5 block
// rows split unevenly over 2 cores (3 + 2) and over 4 (2 + 1 + 1 + 1). The body records
// which core ran each block, so the split is checked as well as the sum: as Pallas'
// emit_pipeline splits an axis that the cores do not divide, with R = base * cores + rem,
// the first rem cores run base + 1 consecutive block rows and the others base (a pallas_call
// grid is split differently: ceil(R / cores) each, see examples/add_matrices_megacore).

#include <algorithm>
#include <atomic>
#include <iostream>
#include <vector>

#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

std::vector<std::atomic<int>> core_of_block;  // block (i, j) at i * (columns / 128) + j

template <int Cores, pl::index_t Rows, pl::index_t Cols>
bool check() {
  using X = pl::Array<float, Rows, Cols>;
  auto const x = X::generate([](auto i, auto j) { return static_cast<float>(i) * 0.125f - static_cast<float>(j); });
  core_of_block = std::vector<std::atomic<int>>(static_cast<std::size_t>(Rows / 8 * (Cols / 128)));
  for (auto& c : core_of_block) c = -1;

  auto add_one_body = [](auto in_vmem, auto out_vmem) {
    out_vmem[pl::ellipsis] = in_vmem[pl::ellipsis] + 1;
    auto const block = pl::program_id(0) * (Cols / 128) + pl::program_id(1);
    core_of_block[static_cast<std::size_t>(block)] = static_cast<int>(pl::axis_index<"core">());
  };
  auto add_one_kernel = [&](auto x_hbm_ref, auto o_hbm_ref) {
    using in_shape = typename decltype(x_hbm_ref)::shape_type;
    pltpu::emit_pipeline(add_one_body, pl::grid<in_shape::static_extent(0) / 8, in_shape::static_extent(1) / 128>,
                         pl::in_specs(pl::BlockSpec<8, 128>([](auto i, auto j) { return pl::idx(i, j); })),
                         pl::out_specs(pl::BlockSpec<8, 128>([](auto i, auto j) { return pl::idx(i, j); })),
                         pltpu::core_axis_name<"core">,
                         pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::ARBITRARY>)(x_hbm_ref, o_hbm_ref);
  };
  auto const y = pl::kernel(pl::like(x), pl::mesh<pltpu::TensorCoreMesh<"core", Cores>>)(add_one_kernel)(x);

  for (pl::index_t i = 0; i < Rows; ++i)
    for (pl::index_t j = 0; j < Cols; ++j)
      if (y(i, j) != x(i, j) + 1) {
        std::cerr << "core_map_add_one (" << Cores << " cores): y[" << i << ", " << j << "] is " << y(i, j)
                  << ", expected " << x(i, j) + 1 << '\n';
        return false;
      }
  pl::index_t const block_rows = Rows / 8, base = block_rows / Cores, rem = block_rows % Cores;
  auto const expected_core = [&](pl::index_t i) {  // the core whose rows hold block row i
    return static_cast<int>(i < rem * (base + 1) ? i / (base + 1) : rem + (i - rem * (base + 1)) / base);
  };
  std::vector<int> rows_per_core(Cores, 0);
  for (pl::index_t i = 0; i < block_rows; ++i)
    for (pl::index_t j = 0; j < Cols / 128; ++j) {
      int const ran = core_of_block[static_cast<std::size_t>(i * (Cols / 128) + j)];
      if (ran != expected_core(i)) {
        std::cerr << "core_map_add_one (" << Cores << " cores): block (" << i << ", " << j << ") ran on core " << ran
                  << ", expected core " << expected_core(i) << '\n';
        return false;
      }
      if (j == 0) ++rows_per_core[static_cast<std::size_t>(ran)];
    }
  std::cout << "core_map_add_one (" << Rows << " x " << Cols << ", " << Cores << " cores): ok, block rows per core:";
  for (int n : rows_per_core) std::cout << ' ' << n;
  std::cout << '\n';
  return true;
}

int main() {
  bool ok = true;
  ok &= check<1, 256, 1024>();
  ok &= check<2, 256, 1024>();
  ok &= check<4, 256, 1024>();
  ok &= check<2, 40, 256>();
  ok &= check<4, 40, 256>();
  return ok ? 0 : 1;
}
