// SPDX-License-Identifier: Apache-2.0
#pragma once
// The mailbox's adds, takes and report, compiled once per program under separate
// compilation (config.hpp) and inline in every translation unit otherwise.

#include <pallas/detail/runtime/mpi_mailbox.hpp>

#ifdef PALLAS_USE_MPI

namespace pallas::detail {

PALLAS_DECL void mpi_mailbox::add(int from, int rank, int core, std::int64_t offset, std::int32_t inc, MPI_Win win) {
  std::int64_t const s = slot_of(offset, rank, core);
  int const sender = rank_ * cores_ + from;
  std::uint32_t& total = sent_[static_cast<std::size_t>(from)][(rank * cores_ + core) * slots + s];
  total += static_cast<std::uint32_t>(inc);
  MPI_Put(&total, 1, MPI_UINT32_T, rank, displacement(core, s, sender), 1, MPI_UINT32_T, win);
  MPI_Win_flush(rank, win);  // after the copy's bytes (flushed before), before the sender goes on
}

PALLAS_DECL std::int32_t mpi_mailbox::take(int core, std::int64_t offset) {
  std::int64_t const s = offset / static_cast<std::int64_t>(sizeof(std::int32_t));
  if (s >= slots) return 0;
  std::uint32_t got = 0;
  std::size_t const first = index(core, s, 0);
  for (int g = 0; g < senders_; ++g) {
    std::uint32_t const now = std::atomic_ref<std::uint32_t>(memory_[first + static_cast<std::size_t>(g)])
                                  .load(std::memory_order_acquire);
    got += now - taken_[first + static_cast<std::size_t>(g)];
    taken_[first + static_cast<std::size_t>(g)] = now;
  }
  return static_cast<std::int32_t>(got);
}

PALLAS_DECL bool mpi_mailbox::pending(int core, std::int64_t words) const {
  std::size_t const end = index(core, std::min(words, slots), 0);
  for (std::size_t k = index(core, 0, 0); k < end; ++k)
    if (std::atomic_ref<std::uint32_t>(memory_[k]).load(std::memory_order_acquire) != taken_[k]) return true;
  return false;
}

PALLAS_DECL std::string mpi_mailbox::untaken() const {
  std::string left;
  for (int c = 0; c < cores_; ++c)
    for (std::int64_t s = 0; s < slots; ++s) {
      std::uint32_t held = 0;
      for (int g = 0; g < senders_; ++g) {
        std::size_t const k = index(c, s, g);
        held += std::atomic_ref<std::uint32_t>(memory_[k]).load(std::memory_order_acquire) - taken_[k];
      }
      if (held != 0)
        left += (left.empty() ? "" : "; ") + std::string("chip ") + std::to_string(rank_) + " core " +
                std::to_string(c) + " semaphore at byte " + std::to_string(s * 4) + " holds " +
                std::to_string(static_cast<std::int32_t>(held));
    }
  return left;
}

PALLAS_DECL std::int64_t mpi_mailbox::slot_of(std::int64_t offset, int rank, int core) const {
  std::int64_t const s = offset / static_cast<std::int64_t>(sizeof(std::int32_t));
  if (s >= slots)
    fail("pallas (PALLAS_USE_MPI): a signal to the semaphore at byte ", offset, " of chip ", rank, " core ", core,
         ": only the first ", slots, " semaphores of a core can be signaled from another rank");
  return s;
}

}  // namespace pallas::detail

#endif  // PALLAS_USE_MPI
