// The TPU pipelining guide's manual memory spaces (docs/pallas/tpu/pipelining.md, "TPU Memory
// Spaces": hbm_vmem_kernel): the input stays in HBM (a BlockSpec in pl::ANY, no pipelining),
// the kernel copies its first row into a VMEM scratch buffer with sync_copy, adds 1 and stores
// the row into the output's VMEM block.
//
//   def hbm_vmem_kernel(x_hbm_ref, out_vmem_ref, scratch_vmem_ref):
//     pltpu.sync_copy(x_hbm_ref.at[0:1], scratch_vmem_ref)
//     out_vmem_ref[...] = scratch_vmem_ref[...] + 1
//
//   out = pl.pallas_call(hbm_vmem_kernel,
//       in_specs=[pl.BlockSpec(memory_space=pltpu.MemorySpace.ANY)],
//       out_shape=jax.ShapeDtypeStruct((1, 128), jnp.float32),
//       scratch_shapes=(pltpu.MemorySpace.VMEM(shape=(1, 128), dtype=jnp.float32),))(x)
//
// x is (8, 128) of uniform numbers in [0, 1) (a fixed LCG instead of jax.random); the result
// is compared with x[0:1] + 1 computed by a loop.

#include <cmath>
#include <cstdint>
#include <iostream>

#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

int main() {
  std::uint32_t state = 12345u;
  auto x = pl::Array<float, 8, 128>::generate([&](auto, auto) {
    state = state * 1664525u + 1013904223u;
    return static_cast<float>(state >> 8) / 16777216.0f;  // 24 random bits in [0, 1)
  });

  auto out = pl::pallas_call(
      [](auto x_hbm_ref, auto out_vmem_ref, auto scratch_vmem_ref) {
        pltpu::sync_copy(x_hbm_ref.at(pl::ds<1>(0)), scratch_vmem_ref);
        out_vmem_ref[pl::ellipsis] = scratch_vmem_ref[pl::ellipsis] + 1;
      },
      pl::in_specs(pl::BlockSpec<>(pl::in_memory<pl::ANY>)),
      pl::out_shape<pl::ShapeDtypeStruct<float, 1, 128>>,
      pl::scratch_shapes<pltpu::VMEM<float, 1, 128>>)(x);

  std::cout << "out[0, :4] = " << out(0, 0) << ' ' << out(0, 1) << ' ' << out(0, 2) << ' ' << out(0, 3) << '\n';
  for (pl::index_t j = 0; j < 128; ++j)
    if (out(0, j) != x(0, j) + 1.0f) {
      std::cerr << "hbm_vmem: out[0, " << j << "] is " << out(0, j) << ", expected " << x(0, j) + 1.0f << '\n';
      return 1;
    }
  std::cout << "hbm_vmem: ok (out == x[0:1] + 1)\n";
  return 0;
}
