// SPDX-License-Identifier: Apache-2.0
#pragma once
// The MPI world's start, windows' release and abort, compiled once per program under
// separate compilation (config.hpp) and inline in every translation unit otherwise.

#include <cstdio>
#include <cstdlib>

#include <pallas/detail/runtime/mpi_world.hpp>

#ifdef PALLAS_USE_MPI

namespace pallas::detail {

PALLAS_DECL void mpi_world::kept_windows::release() {
  for (auto& w : arenas) {
    MPI_Win_unlock_all(w);
    MPI_Win_free(&w);
  }
  arenas.clear();
  made_for.clear();
  for (MPI_Win* w : {&mailbox_win, &status_win, &incoming_win, &hbm})
    if (*w != MPI_WIN_NULL) {
      MPI_Win_unlock_all(*w);
      MPI_Win_free(w);
    }
}

PALLAS_DECL mpi_world const& mpi_world::get() {
  static mpi_world const world = [] {
    int initialized = 0;
    MPI_Initialized(&initialized);
    int provided = MPI_THREAD_SINGLE;
    if (!initialized) {
      MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided);
      std::atexit([] {
        int finalized = 0;
        MPI_Finalized(&finalized);
        if (finalized) return;
        get().windows->release();
        MPI_Finalize();
      });
    } else {
      MPI_Query_thread(&provided);
    }
    if (provided < MPI_THREAD_MULTIPLE)
      fail("pallas (PALLAS_USE_MPI): MPI gives thread support level ", provided,
           ", pallas needs MPI_THREAD_MULTIPLE (", MPI_THREAD_MULTIPLE,
           "): every core of a chip is a thread that calls MPI. Initialize MPI with MPI_Init_thread(..., "
           "MPI_THREAD_MULTIPLE, ...) or use an MPI built with thread support");
    mpi_world w;
    MPI_Comm_rank(MPI_COMM_WORLD, &w.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &w.size);
    MPI_Comm_dup(MPI_COMM_WORLD, &w.comm);
    MPI_Comm_set_errhandler(w.comm, MPI_ERRORS_RETURN);
    w.windows = new kept_windows;  // never deleted: atexit may still need it
    return w;
  }();
  return world;
}

PALLAS_DECL void mpi_world::abort(char const* what) const {
  std::fprintf(stderr, "pallas: MPI rank %d of %d failed: %s\n", rank, size, what);
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();
}

}  // namespace pallas::detail

#endif  // PALLAS_USE_MPI
