// SPDX-License-Identifier: Apache-2.0
#pragma once
// MPI's C API for the MPI backend (PALLAS_USE_MPI), and nothing without it. pallas uses
// only the C API; the C++ bindings (removed from the standard) would need another library.

#ifdef PALLAS_USE_MPI
#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>
#endif
