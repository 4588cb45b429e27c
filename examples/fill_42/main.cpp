// The quickstart's first kernel: fill an output with a constant. A VMEM buffer is filled
// with 42 and copied to the output in HBM.
//
//   @pl.kernel(
//       out_type=jax.ShapeDtypeStruct((128,), jnp.float32),
//       mesh=pltpu.TensorCoreMesh(axis_name='core'),
//       scratch_types=dict(o_vmem=pltpu.VMEM((128,), jnp.float32)),
//   )
//   def fill_42(o_ref, o_vmem):
//     o_vmem[...] = jnp.full_like(o_vmem, 42.0)
//     pltpu.sync_copy(o_vmem, o_ref)
//
//   result = fill_42()  # [42.0, 42.0, ...]
//
// Both cores write the whole output: a race (harmless, the values agree), which checked
// mode reports like interpret mode's detect_races, and pltpu::races_found() confirms.
#include <pallas/pallas.hpp>

#include <iostream>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

auto fill_42 = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 128>>,
                          pl::mesh<pltpu::TensorCoreMesh<"core">>,
                          pl::scratch_types<pltpu::VMEM<float, 128>>)(
    [](auto o_ref, auto o_vmem) {
      // Compute in VMEM
      o_vmem[pl::ellipsis] = pl::full_like(o_vmem, 42.0f);

      // VMEM -> HBM (blocks until the transfer completes)
      pltpu::sync_copy(o_vmem, o_ref);
    });

int main() {
  pl::Array<float, 128> result = fill_42();  // [42.0, 42.0, ...]
  std::cout << result << '\n';

  // Every core of the mesh ran the body (v5p: 2), each writing the same 42s.
  for (float x : result)
    if (x != 42.0f) {
      std::cerr << "fill_42: expected 128 x 42, got the above\n";
      return 1;
    }

  // Those writes are a race, harmless here because the values agree: checked mode's race
  // detector (as Pallas' InterpretParams(detect_races=True)) printed it to stderr, and
  // races_found() says so. On hardware, give each core its own slice (o_ref.at(...)).
  bool const expect_race = pl::checked_mode && pltpu::get_tpu_info().num_cores > 1 &&
                           pltpu::get_interpret_params().detect_races != pltpu::race_detection::off;
  if (pltpu::races_found() != expect_race) {
    std::cerr << "fill_42: races_found() is " << pltpu::races_found() << ", expected " << expect_race << '\n';
    return 1;
  }
  if (expect_race) std::cout << "fill_42: the cores' writes race, as pltpu.races_found() reports\n";
  std::cout << "fill_42: ok (" << pltpu::get_tpu_info().num_cores << " cores)\n";
  return 0;
}
