// Runs `body` once on every core of a TensorCoreMesh of `Cores` cores, with `Scratch...`
// as its scratch operands: the kernel without operands that the runtime tests launch.
#pragma once

#include <pallas/pallas.hpp>

namespace pallas_test {

template <int Cores, class... Scratch, class F>
void run_on(F body) {
  pallas::kernel(pallas::mesh<pallas::tpu::TensorCoreMesh<"core", Cores>>, pallas::scratch_types<Scratch...>)(body)();
}

}  // namespace pallas_test
