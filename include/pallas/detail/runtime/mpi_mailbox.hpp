// SPDX-License-Identifier: Apache-2.0
#pragma once
// Where other ranks' semaphore signals land in the MPI backend (mpi_transport.hpp). Each
// rank's mailbox holds, for every local core, every semaphore slot and every sending core of
// the launch, the total that sender has signaled into that slot (uint32, modulo 2^32). A
// sender adds to its own running total and MPI_Puts it: one word with one writer, so no MPI
// atomics, which Open MPI completes only when the target rank progresses MPI (a rank that
// computes would hold its senders up). The receiver reads its own memory, no MPI call, and
// takes the difference from what it took before.
//
// Only the first `slots` semaphore words of a core can be signaled from another rank (the
// scratch semaphores are allocated from the start of the core's semaphore memory).

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include <pallas/config.hpp>
#include <pallas/detail/runtime/mpi_api.hpp>
#include <pallas/error.hpp>

#ifdef PALLAS_USE_MPI

namespace pallas::detail {

class mpi_mailbox {
 public:
  static constexpr std::int64_t slots = 4096;  ///< semaphore words per core another rank can signal

  /// The mailbox's words on each rank, for `cores` cores per chip on `ranks` ranks.
  static std::size_t words(int ranks, int cores) {
    return static_cast<std::size_t>(cores) * static_cast<std::size_t>(slots) * static_cast<std::size_t>(ranks * cores);
  }

  /// `memory` is this rank's mailbox (the window's memory, kept from launch to launch).
  mpi_mailbox(std::vector<std::uint32_t>& memory, int rank, int ranks, int cores)
      : memory_(memory), rank_(rank), cores_(cores), senders_(ranks * cores),
        taken_(words(ranks, cores), 0), sent_(static_cast<std::size_t>(cores)) {}

  /// At the launch's start, before its first collective (no rank sends before it): every
  /// total starts at zero. A correct program took every signal of the last launch.
  void clear() { std::fill(memory_.begin(), memory_.end(), 0u); }

  /// Local core `from` adds `inc` to the semaphore at byte `offset` of core `core` of `rank`.
  void add(int from, int rank, int core, std::int64_t offset, std::int32_t inc, MPI_Win win);

  /// What other ranks signaled into local core `core`'s semaphore at byte `offset` since the
  /// last take (0 when nothing). The caller serializes takes.
  std::int32_t take(int core, std::int64_t offset);

  /// Whether any signal waits to be taken in the first `words` semaphore words of `core`.
  bool pending(int core, std::int64_t words) const;

  /// "chip 1 core 0 semaphore at byte 64 holds 3; ...": what no wait took ("" when nothing).
  std::string untaken() const;

 private:
  std::size_t index(int core, std::int64_t s, int sender) const {
    return (static_cast<std::size_t>(core) * static_cast<std::size_t>(slots) + static_cast<std::size_t>(s)) *
               static_cast<std::size_t>(senders_) +
           static_cast<std::size_t>(sender);
  }
  MPI_Aint displacement(int core, std::int64_t s, int sender) const {
    return static_cast<MPI_Aint>(index(core, s, sender) * sizeof(std::uint32_t));
  }
  std::int64_t slot_of(std::int64_t offset, int rank, int core) const;

  std::vector<std::uint32_t>& memory_;
  int rank_, cores_, senders_;
  std::vector<std::uint32_t> taken_;  ///< [core][slot][sender]: what local waits took
  std::vector<std::unordered_map<std::int64_t, std::uint32_t>> sent_;  ///< per local core: its totals
};

}  // namespace pallas::detail

#endif  // PALLAS_USE_MPI

#if PALLAS_DEFINE_RUNTIME
#  include <pallas/detail/runtime/mpi_mailbox.ipp>
#endif
