// expect-error: pallas::kernel: input refs are read-only: a copy cannot write into a kernel's input
// pallas_call with a raw (ANY) input: the kernel gets the input's HBM ref, read-only unless
// the input is aliased to an output. The positive twin aliases it (input_output_aliases
// {0: 0}): the ref is then the output's buffer, so the write lands in the output and the
// caller's array stays as it was.
#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

int main() {
  auto const x = pl::Array<float, 16, 128>::full(1.0f);
  auto kernel = [](auto x_any, auto o_any, auto vmem) {
    pltpu::sync_copy(x_any.at(pl::ds<8>(0)), vmem);
    vmem[pl::ellipsis] = vmem[pl::ellipsis] * 3.0f;
    pltpu::sync_copy(vmem, x_any.at(pl::ds<8>(8)));  // rows 8-15 of the input's ref
    (void)o_any;
  };
  auto call = pl::pallas_call(kernel, pl::like(x), pl::in_specs(pl::BlockSpec<>(pl::in_memory<pl::ANY>)),
                              pl::out_specs(pl::BlockSpec<>(pl::in_memory<pl::ANY>)),
                              pl::scratch_shapes<pltpu::VMEM<float, 8, 128>>, pltpu::num_cores<1>
#ifndef PALLAS_COMPILE_FAIL
                              , pl::input_output_aliases<pl::alias{0, 0}>
#endif
  );
  auto const o = call(x);
  return o(0, 0) == 1.0f && o(8, 0) == 3.0f && x(8, 0) == 1.0f ? 0 : 1;
}
