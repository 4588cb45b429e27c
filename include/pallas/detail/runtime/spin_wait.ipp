// SPDX-License-Identifier: Apache-2.0
#pragma once
// The spin-or-park rule's machine queries, compiled once per program under separate
// compilation (config.hpp) and inline in every translation unit otherwise.

#include <pallas/detail/runtime/spin_wait.hpp>

#include <algorithm>
#include <cstdlib>

namespace pallas::detail {

PALLAS_DECL unsigned processes_on_this_machine() noexcept {
  for (char const* name : {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"})
    if (char const* env = std::getenv(name); env && std::atoi(env) > 0) return static_cast<unsigned>(std::atoi(env));
  return 1;
}

PALLAS_DECL bool spinning_pays(int threads) noexcept {
  static unsigned const cpus = std::max(1u, std::thread::hardware_concurrency());
  static unsigned const processes = processes_on_this_machine();
  return static_cast<unsigned>(threads) * processes <= cpus;
}

}  // namespace pallas::detail
