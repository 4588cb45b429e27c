// SPDX-License-Identifier: Apache-2.0
#pragma once
// Separate compilation (PALLAS_SEPARATE_COMPILATION, config.hpp) needs the runtime's
// translation unit and every kernel's to agree on PALLAS_CHECKED and PALLAS_USE_MPI: the
// classes they share differ otherwise. The runtime defines one function named after its
// settings and every launch calls the one named after the caller's, so a mismatch is a link
// error that names the settings ("undefined reference to ...runtime_built_with_checked_0_mpi_0").

#include <pallas/config.hpp>

#if PALLAS_CHECKED
#  if defined(PALLAS_USE_MPI)
#    define PALLAS_RUNTIME_SETTINGS runtime_built_with_checked_1_mpi_1
#  else
#    define PALLAS_RUNTIME_SETTINGS runtime_built_with_checked_1_mpi_0
#  endif
#else
#  if defined(PALLAS_USE_MPI)
#    define PALLAS_RUNTIME_SETTINGS runtime_built_with_checked_0_mpi_1
#  else
#    define PALLAS_RUNTIME_SETTINGS runtime_built_with_checked_0_mpi_0
#  endif
#endif

namespace pallas::detail {

#if defined(PALLAS_SEPARATE_COMPILATION)
void PALLAS_RUNTIME_SETTINGS() noexcept;
#  if PALLAS_DEFINE_RUNTIME
void PALLAS_RUNTIME_SETTINGS() noexcept {}
#  endif
#endif

/// Called by every launch: under separate compilation, links only against a runtime built
/// with this translation unit's settings.
inline void require_matching_runtime() noexcept {
#if defined(PALLAS_SEPARATE_COMPILATION)
  PALLAS_RUNTIME_SETTINGS();
#endif
}

}  // namespace pallas::detail
