// The TPU pipelining guide's megacore kernel (docs/pallas/tpu/pipelining.md, "TPUs in Megacore
// configuration": add_matrices_pipelined_megacore): a pallas_call over a grid of 2 steps of
// (256, 512) blocks whose only axis is "parallel", so the steps are split over the chip's
// TensorCores (which have their own VMEM but share HBM).
//
//   def add_matrices_kernel(x_vmem_ref, y_vmem_ref, z_vmem_ref):
//     x_vregs = x_vmem_ref[:, :]
//     y_vregs = y_vmem_ref[:, :]
//     z_vregs = x_vregs + y_vregs
//     z_vmem_ref[:, :] = z_vregs
//
//   def add_matrices_pipelined_megacore(x, y):
//     block_spec = pl.BlockSpec((256, 512), lambda i: (i, 0))
//     return pl.pallas_call(add_matrices_kernel, out_shape=x,
//         in_specs=[block_spec, block_spec], out_specs=block_spec, grid=(2,),
//         compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",)))(x, y)
//
//   x, y = jnp.ones((512, 512)), jnp.ones((512, 512))
//
// Run as in the guide (ones + ones, the chip's cores), then with distinct values on 1, 2 and 4
// cores, and with a longer grid (8 steps of (64, 512) blocks) where each core gets several
// consecutive steps. The call's plan (pl::plan_of) shows how the grid was split, and is
// checked too: core c runs steps [c * ceil(P / cores), (c + 1) * ceil(P / cores)).

#include <algorithm>
#include <iostream>
#include <string>

#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

bool split_ok = true;

// Core c of the plan runs the consecutive steps [c * share, (c + 1) * share), share = ceil(P / cores).
template <class Plan>
void split_is_even(Plan const& plan, pl::index_t steps) {
  pl::index_t const share = (steps + plan.num_cores - 1) / plan.num_cores;
  std::cout << "  " << plan.num_cores << " cores:";
  for (int c = 0; c < plan.num_cores; ++c) {
    auto const cu = static_cast<std::size_t>(c);
    pl::index_t const first = std::min(steps, c * share), count = std::min(steps, (c + 1) * share) - first;
    std::cout << " core " << c << " runs " << plan.steps(cu) << " steps" << (c + 1 < plan.num_cores ? "," : "\n");
    split_ok &= plan.steps(cu) == count;
    for (pl::index_t s = 0; s < plan.steps(cu) && s < count; ++s) split_ok &= plan.point(cu, s)[0] == first + s;
  }
}

template <int Cores, pl::index_t BlockRows, class X>
X add_matrices_pipelined_megacore(X const& x, X const& y) {
  auto add_matrices_kernel = [](auto x_vmem_ref, auto y_vmem_ref, auto z_vmem_ref) {
    auto x_vregs = pl::load(x_vmem_ref);  // load x and y from VMEM into (modelled) vector registers
    auto y_vregs = pl::load(y_vmem_ref);
    auto z_vregs = pl::eval(x_vregs + y_vregs);  // a vectorized add
    z_vmem_ref[pl::ellipsis] = z_vregs;          // store the result back into VMEM
  };
  constexpr pl::index_t rows = X::shape[0];
  auto block_spec = pl::BlockSpec<BlockRows, 512>([](auto i) { return pl::idx(i, 0); });
  auto call = [&](auto cores) {
    auto const megacore_add =
        pl::pallas_call(add_matrices_kernel, pl::like(x), pl::in_specs(block_spec, block_spec),
                        pl::out_specs(block_spec), pl::grid<rows / BlockRows>,
                        pltpu::compiler_params(pltpu::dimension_semantics<pltpu::PARALLEL>), cores);
    split_is_even(pl::plan_of(megacore_add, x, y), rows / BlockRows);
    return megacore_add(x, y);
  };
  if constexpr (Cores == 0)
    return call(pltpu::num_cores<pltpu::get_tpu_info().num_cores>);  // the chip's cores
  else
    return call(pltpu::num_cores<Cores>);
}

template <int Cores, pl::index_t BlockRows>
bool check(std::string const& what, bool guide_inputs) {
  using X = pl::Array<float, 512, 512>;
  auto const x = guide_inputs ? X::full(1.0f) : X::generate([](auto i, auto j) {
    return static_cast<float>((i * 512 + j) % 1013);
  });
  auto const y = guide_inputs ? X::full(1.0f) : X::generate([](auto i, auto j) {
    return static_cast<float>(i) - 0.25f * static_cast<float>(j);
  });
  auto const z = add_matrices_pipelined_megacore<Cores, BlockRows>(x, y);
  for (pl::index_t i = 0; i < 512; ++i)
    for (pl::index_t j = 0; j < 512; ++j)
      if (z(i, j) != x(i, j) + y(i, j)) {
        std::cerr << "add_matrices_megacore (" << what << "): z[" << i << ", " << j << "] is " << z(i, j)
                  << ", expected " << x(i, j) + y(i, j) << '\n';
        return false;
      }
  if (!split_ok) {
    std::cerr << "add_matrices_megacore (" << what << "): the grid was not split into consecutive equal shares\n";
    return false;
  }
  std::cout << "add_matrices_megacore (" << what << "): ok\n";
  return true;
}

int main() {
  bool ok = true;
  ok &= check<0, 256>("the guide's ones + ones, the chip's cores", true);
  ok &= check<1, 256>("1 core", false);
  ok &= check<2, 256>("2 cores", false);
  ok &= check<4, 256>("4 cores, two idle", false);
  ok &= check<2, 64>("8 steps on 2 cores", false);
  ok &= check<4, 64>("8 steps on 4 cores", false);
  return ok ? 0 : 1;
}
