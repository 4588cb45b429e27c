// SPDX-License-Identifier: Apache-2.0
#pragma once
// What every core of one launch shares: the cores, the abort flag and first error, the DMA
// order, and the deadlock detector's generation counter.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include <pallas/detail/checked/race_detector.hpp>
#include <pallas/detail/runtime/core.hpp>
#include <pallas/detail/runtime/dma_order.hpp>
#include <pallas/detail/runtime/interleaving.hpp>
#include <pallas/detail/runtime/spin_wait.hpp>

namespace pallas::detail {

/// Thrown inside a core when another core failed: it unwinds the core without being
/// reported (the first real exception is what the caller sees).
struct launch_aborted {};

struct chip_context;  // chip_set.hpp: the chips of a multi-chip launch

struct launch_state {
  int num_cores = 1;
  std::uint64_t id = 0;                ///< the device's launch number (messages)
  char const* who = "pl::kernel";      ///< what launched it: pl::kernel or pl::pallas_call
  core_state* const* cores = nullptr;  ///< every core of the launch, by index
  std::atomic<int> arrived{0};         ///< for start_barrier
  std::string_view axis_name;
  std::atomic<bool> aborted{false};
  std::mutex error_mutex;
  std::exception_ptr first_error;
  dma_order_policy schedule;                 ///< DMA completion order of this launch
  launch_conventions conventions;            ///< the interpreter's conventions it follows
  interleaving interleave;                   ///< random order: the cores' seeded interleaving
  std::atomic<std::uint64_t> generation{1};  ///< bumped whenever a core blocks, unblocks, finishes
  std::atomic<std::uint64_t> suspect{0};     ///< a generation suspected of being a deadlock
  std::atomic<bool> deadlock_reported{false};
  /// A launch on several chips (chip_set.hpp): cores [c * cores_per_chip, (c + 1) *
  /// cores_per_chip) are chip c's. One chip otherwise (cores_per_chip == num_cores).
  int cores_per_chip = 1;
  chip_context* chips = nullptr;
  /// The global index of cores[0]: 0 in process; chip r's first core on MPI rank r, where a
  /// process runs one chip's cores (detail/runtime/mpi_transport.hpp).
  int first_core = 0;

  /// Records the first failure and tells every core to stop.
  void fail_with(std::exception_ptr e);

  /// Unwinds the calling core if the launch was stopped; called at blocking points.
  void check_aborted() const {
    if (aborted.load(std::memory_order_acquire)) throw launch_aborted{};
  }

  /// Every core waits here once, after allocating its scratch and before its body runs, so
  /// that no core signals a semaphore another core has not yet allocated.
  void start_barrier() {
    arrived.fetch_add(1, std::memory_order_acq_rel);
    start_barrier_wait();
  }
  void start_barrier_wait();
};

/// A core's index among its chip's cores (what `pl::axis_index<"core">()` gives), and its
/// chip's index in a multi-chip launch (0 otherwise).
inline int local_core_index(core_state const& core) noexcept { return core.index % core.launch->cores_per_chip; }
inline int chip_index(core_state const& core) noexcept {
  return (core.launch->first_core + core.index) / core.launch->cores_per_chip;
}

/// "core 1", or "chip 2 core 1" in a multi-chip launch (messages).
[[gnu::cold]] std::string core_name(core_state const& core);

}  // namespace pallas::detail

#if PALLAS_DEFINE_RUNTIME
#  include <pallas/detail/runtime/launch.ipp>
#endif
