// The quickstart's second kernel: distributing work across TensorCores by hand. Each core
// computes its 128-element chunk in VMEM and copies it to its own slice of the output.
//
//   def iota() -> jax.Array:
//     tpu_info = pltpu.get_tpu_info()
//
//     @pl.kernel(
//         out_type=jax.ShapeDtypeStruct((128 * tpu_info.num_cores,), jnp.float32),
//         mesh=pltpu.TensorCoreMesh(axis_name='core'),
//         scratch_types=dict(o_vmem=pltpu.VMEM((128,), jnp.float32)),
//     )
//     def kernel(o_ref, o_vmem):
//       i = jax.lax.axis_index('core')
//       o_vmem[...] = jnp.arange(128, dtype=jnp.float32) + i * 128
//       pltpu.sync_copy(o_vmem, o_ref.at[pl.ds(i * 128, 128)])
//
//     return kernel()
//
//   result = iota()  # [0.0, 1.0, 2.0, ...]
#include <pallas/pallas.hpp>

#include <iostream>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

auto iota() {
  constexpr auto tpu_info = pltpu::get_tpu_info();

  auto kernel = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 128 * tpu_info.num_cores>>,
                           pl::mesh<pltpu::TensorCoreMesh<"core">>,
                           pl::scratch_types<pltpu::VMEM<float, 128>>)(
      [](auto o_ref, auto o_vmem) {
        auto i = pl::axis_index<"core">();

        // Compute our chunk in VMEM
        o_vmem[pl::ellipsis] = pl::arange<float, 128>() + i * 128;

        // Copy back to our slice of HBM
        pltpu::sync_copy(o_vmem, o_ref.at(pl::ds<128>(i * 128)));
      });

  return kernel();
}

int main() {
  auto result = iota();  // [0.0, 1.0, 2.0, ...]
  std::cout << result << '\n';

  for (pl::index_t k = 0; k < result.size(); ++k)
    if (result(k) != static_cast<float>(k)) {
      std::cerr << "iota: element " << k << " is " << result(k) << ", expected " << k << '\n';
      return 1;
    }
  std::cout << "iota: ok (" << result.size() << " elements from " << pltpu::get_tpu_info().num_cores
            << " cores)\n";
  return 0;
}
