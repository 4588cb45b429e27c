// SPDX-License-Identifier: Apache-2.0
#pragma once
// This process's place in an MPI job (PALLAS_USE_MPI): its rank, pallas' own communicator,
// MPI initialized and finalized when the program does not, and the windows the MPI backend
// (mpi_transport.hpp) keeps from one launch to the next.

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include <pallas/config.hpp>
#include <pallas/detail/runtime/mpi_api.hpp>
#include <pallas/error.hpp>

#ifdef PALLAS_USE_MPI

namespace pallas::detail {

/// This process's place in MPI_COMM_WORLD. The first call initializes MPI (with
/// MPI_THREAD_MULTIPLE, finalized at exit) unless the program did; either way it checks
/// that threads may call MPI concurrently.
struct mpi_world {
  int rank = 0;
  int size = 1;
  /// pallas' own duplicate of MPI_COMM_WORLD: its collectives never interleave with the
  /// program's, and its errors come back as codes (MPI_ERRORS_RETURN) to be explained.
  MPI_Comm comm = MPI_COMM_NULL;

  /// The windows kept from one launch to the next (mpi_transport): [core][VMEM, SMEM], the
  /// mailbox over `mailbox`, the dynamic window for HBM shards, and what they were made for.
  struct kept_windows {
    std::vector<MPI_Win> arenas;
    std::vector<std::pair<std::byte const*, std::int64_t>> made_for;  ///< each arena's base and capacity
    std::vector<std::uint32_t> mailbox;
    MPI_Win mailbox_win = MPI_WIN_NULL;
    std::vector<std::int64_t> status;  ///< the deadlock proof's words (mpi_deadlock.hpp)
    MPI_Win status_win = MPI_WIN_NULL;
    std::vector<std::uint64_t> incoming;  ///< checked mode: the copy descriptions (mpi_incoming.hpp)
    MPI_Win incoming_win = MPI_WIN_NULL;
    MPI_Win hbm = MPI_WIN_NULL;
    std::int64_t launches = 0;  ///< multi-chip launches so far (the same count on every rank)

    /// Frees them (collective: every rank at the same point).
    void release();
  };
  kept_windows* windows = nullptr;  ///< one per process, freed before MPI_Finalize

  static mpi_world const& get();

  /// Prints `what` as this rank's error and ends the whole job (no rank hangs waiting for
  /// this one).
  [[noreturn]] void abort(char const* what) const;
};

}  // namespace pallas::detail

#endif  // PALLAS_USE_MPI

#if PALLAS_DEFINE_RUNTIME
#  include <pallas/detail/runtime/mpi_world.ipp>
#endif
