// SPDX-License-Identifier: Apache-2.0
#pragma once
// Checked mode over MPI: how a core learns of the remote copies other ranks started into
// it, so that touching a destination before its wait_recv is a race naming both chips, as
// in one process (checked_state.hpp's incoming copies, which a sender there adds itself).
//
// Each rank's log holds, for every local core and every sending core of the launch, a ring
// of copy descriptions, the count the sender has written and the count the receiver has
// read. A sender puts the description and its count and flushes, then sets the receiving
// core's hint word, all before the copy's bytes go (mpi_transport.hpp), so a receiver that
// sees the bytes or the signal also sees the description. The receiver reads the rings
// (its own memory, no MPI call) when its next checked access finds the hint set and at
// every wait. A sender that finds a ring full reads the receiver's count (MPI_Get) until
// there is room, reading its own rings meanwhile, so two cores that both send never block
// each other; the receiver reads in its waits and at its accesses.
//
// Only checked mode makes the window (mpi_transport.hpp).

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <thread>
#include <vector>

#include <pallas/detail/checked/checked_access.hpp>
#include <pallas/detail/runtime/mpi_api.hpp>

#ifdef PALLAS_USE_MPI

namespace pallas::detail {

/// One remote copy as its receiver needs it: the destination as a place in the receiving
/// core's memory, its receive semaphore, and the text that names it in a race report.
struct remote_copy_description {
  static constexpr int max_rank = region::max_rank;
  static constexpr int vmem = 0, smem = 1, first_hbm = 2;  ///< `space`: HBM operand k is first_hbm + k

  std::int64_t offset = 0;       ///< bytes into `space`
  std::int64_t recv_offset = 0;  ///< the receive semaphore, bytes into the core's semaphores
  std::int64_t bytes = 0;
  std::int64_t element_bytes = 0;
  std::int64_t extents[max_rank]{};
  std::int64_t strides[max_rank]{};  ///< in elements
  std::int32_t space = vmem;
  std::int32_t rank = 0;
  char from[192]{};  ///< "a remote copy (512 bytes) from chip 0 core 0 started at main.cpp:12"

  void set_from(std::string_view text) noexcept {
    std::size_t const n = std::min(text.size(), sizeof from - 1);
    std::memcpy(from, text.data(), n);
    from[n] = '\0';
  }
};
static_assert(sizeof(remote_copy_description) % sizeof(std::uint64_t) == 0);

class mpi_incoming_log {
 public:
  static constexpr std::int64_t capacity = 64;  ///< descriptions per (sender, receiver) ring

  /// The log's 64-bit words on each rank, for `cores` cores per chip on `ranks` ranks.
  static std::size_t words(int ranks, int cores) {
    return static_cast<std::size_t>(cores) * core_words(ranks * cores);
  }

  /// `memory` is this rank's log (the window's memory, kept from launch to launch).
  mpi_incoming_log(std::vector<std::uint64_t>& memory, int rank, int ranks, int cores)
      : memory_(memory), rank_(rank), cores_(cores), senders_(ranks * cores),
        written_(static_cast<std::size_t>(cores * senders_), 0), known_read_(written_.size(), 0) {}

  /// At the launch's start, before its first collective (no rank sends before it).
  void clear() { std::fill(memory_.begin(), memory_.end(), 0u); }

  /// The word a sender sets when it adds a description for local core `core`.
  std::uint64_t* hint(int core) { return &memory_[base(core)]; }

  /// Local core `from` describes a copy into core `core` of `rank`; `while_full()` runs
  /// between polls while that ring is full.
  template <class WhileFull>
  void post(int from, int rank, int core, remote_copy_description const& d, MPI_Win win, WhileFull&& while_full) {
    std::size_t const pair = static_cast<std::size_t>(from * senders_ + rank * cores_ + core);
    int const sender = rank_ * cores_ + from;
    std::uint64_t& written = written_[pair];
    std::uint64_t& known_read = known_read_[pair];
    while (written - known_read >= static_cast<std::uint64_t>(capacity)) {
      MPI_Get(&known_read, 1, MPI_UINT64_T, rank, displacement(header(core, sender) + 1), 1, MPI_UINT64_T, win);
      MPI_Win_flush(rank, win);
      if (written - known_read < static_cast<std::uint64_t>(capacity)) break;
      while_full();
      std::this_thread::yield();
    }
    std::size_t const slot = header(core, sender) + header_words +
                             static_cast<std::size_t>(written % static_cast<std::uint64_t>(capacity)) * description_words;
    MPI_Put(&d, static_cast<int>(sizeof d), MPI_BYTE, rank, displacement(slot), static_cast<int>(sizeof d), MPI_BYTE,
            win);
    ++written;
    MPI_Put(&written, 1, MPI_UINT64_T, rank, displacement(header(core, sender)), 1, MPI_UINT64_T, win);
    MPI_Win_flush(rank, win);  // the description, then its count, land before the hint
    static std::uint64_t const set = 1;
    MPI_Put(&set, 1, MPI_UINT64_T, rank, displacement(base(core)), 1, MPI_UINT64_T, win);
    MPI_Win_flush(rank, win);  // before the copy's bytes go
  }

  /// Calls `each(description)` for what arrived for local core `core` since the last read,
  /// each sender's in the order it posted them. Only that core's thread reads its rings.
  template <class F>
  void read(int core, F&& each) {
    std::atomic_ref<std::uint64_t>(memory_[base(core)]).store(0, std::memory_order_seq_cst);
    for (int g = 0; g < senders_; ++g) {
      std::size_t const h = header(core, g);
      std::uint64_t const written = std::atomic_ref<std::uint64_t>(memory_[h]).load(std::memory_order_acquire);
      std::uint64_t read = memory_[h + 1];
      if (read == written) continue;
      for (; read < written; ++read) {
        remote_copy_description d;
        std::size_t const slot =
            h + header_words + static_cast<std::size_t>(read % static_cast<std::uint64_t>(capacity)) * description_words;
        std::memcpy(static_cast<void*>(&d), &memory_[slot], sizeof d);
        each(d);
      }
      std::atomic_ref<std::uint64_t>(memory_[h + 1]).store(read, std::memory_order_release);  // room for the sender
    }
  }

 private:
  static constexpr std::size_t hint_words = 8;    // a cache line
  static constexpr std::size_t header_words = 8;  // written, read; a cache line
  static constexpr std::size_t description_words = sizeof(remote_copy_description) / sizeof(std::uint64_t);
  static std::size_t ring_words() { return header_words + static_cast<std::size_t>(capacity) * description_words; }
  static std::size_t core_words(int senders) { return hint_words + static_cast<std::size_t>(senders) * ring_words(); }

  std::size_t base(int core) const { return static_cast<std::size_t>(core) * core_words(senders_); }
  std::size_t header(int core, int sender) const {
    return base(core) + hint_words + static_cast<std::size_t>(sender) * ring_words();
  }
  static MPI_Aint displacement(std::size_t word) { return static_cast<MPI_Aint>(word * sizeof(std::uint64_t)); }

  std::vector<std::uint64_t>& memory_;
  int rank_, cores_, senders_;
  std::vector<std::uint64_t> written_;     ///< [local sender core][target core]: descriptions posted
  std::vector<std::uint64_t> known_read_;  ///< the same pairs: the receiver's read count last fetched
};

}  // namespace pallas::detail

#endif  // PALLAS_USE_MPI
