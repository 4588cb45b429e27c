// SPDX-License-Identifier: Apache-2.0
#pragma once
// The chips of a multi-chip launch (tpu/device_mesh.hpp): the mesh's geometry, every chip's
// HBM buffers, and the remote copies in flight between chips.
//
// In process, a launch on N chips of C cores each is one launch of N * C cores: chip c's
// cores are [c * C, (c + 1) * C), so that abort, deadlock detection and the start barrier
// span every chip. Buffers are allocated identically on every chip (same scratch, same
// run_scoped sequence, same operand list), so a remote destination is the sender's own
// buffer translated by offset into the target's (an OpenSHMEM-style symmetric heap).
//
// The transport seam: a remote copy is described by a `remote_task` (bytes to move, the
// sender's send semaphore, the target core and its receive semaphore's id) and handed to
// the launch's `chip_transport`. This file's `in_process_transport` keeps started copies
// until a wait needs one (on either chip), or moves them at start under the eager order;
// another backend (one process per chip) would implement the same three operations.

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include <pallas/detail/runtime/core.hpp>
#include <pallas/detail/runtime/dma_task.hpp>
#include <pallas/detail/runtime/launch.hpp>
#include <pallas/error.hpp>

namespace pallas::detail {

/// One remote copy: `task` moves the bytes into the target's memory (its semaphore is
/// unused); when they have moved, `send` (the sender's) and the target core's semaphore
/// at `recv_offset` are each signaled with the byte count.
struct remote_task {
  dma_task task;
  std::atomic<std::int32_t>* send = nullptr;
  int sender = 0;  ///< global core index
  int target = 0;  ///< global core index
  std::int64_t recv_offset = 0;
  std::atomic<std::int32_t>* recv = nullptr;  ///< the target's semaphore (it may not be allocated yet)
};

/// What a backend does with remote copies.
class chip_transport {
 public:
  virtual ~chip_transport() = default;
  /// A copy started: move it now, or keep it until a wait needs it.
  virtual void start(launch_state& launch, remote_task const& t, bool now) = 0;
  /// Moves one kept copy that signals `cell` (on either side); false if there is none.
  virtual bool progress(launch_state& launch, void const* cell) = 0;
  /// Whether a kept copy signals `cell` (deadlock detection: the wait can still end).
  virtual bool pending_for(void const* cell) = 0;
  /// When the launch ends: moves the bytes of the copies never waited on either side (their
  /// semaphores are gone) and returns how many there were.
  virtual std::size_t leftovers() = 0;

  // A backend with one chip per process (mpi_transport.hpp) reaches the other chips' cores
  // only through these; in process, every core is here and they are never called.

  /// Whether global core `target` runs in this process.
  virtual bool in_this_process(int /*target*/) const { return true; }
  /// A copy from core `me` into core `target` of another process: `task.dst` is the
  /// destination as `me` sees it (the same buffer and offset are written on `target`).
  /// When the bytes have landed, `target`'s semaphore at `recv_offset`, then `send`, are
  /// signaled with the byte count.
  PALLAS_DECL virtual void start_elsewhere(core_state& me, dma_task const& task, std::atomic<std::int32_t>* send,
                                           int target, std::int64_t recv_offset, place where);
  /// The end of core `me`'s body, before it counts as finished: copies it kept go now.
  virtual void body_done(core_state& /*me*/) {}
  /// Adds `inc` to the semaphore at `offset` of core `target` of another process.
  PALLAS_DECL virtual void signal_elsewhere(core_state& me, int target, std::int64_t offset, std::int32_t inc);
  /// Whether other processes may signal this launch's semaphores (then a wait that every
  /// local core is stuck in is not a proven deadlock).
  virtual bool spans_processes() const { return false; }
  /// Called by a waiting core between its polls, once it is registered as blocked, with
  /// when that wait began blocking: where the launch's deadlock detector cannot see every
  /// chip, a timeout throws here.
  virtual void check_stalled(core_state& /*me*/, std::chrono::steady_clock::time_point /*since*/) {}
};

/// Global core `target` of the launch, which runs in this process.
inline core_state& core_of_launch(launch_state const& launch, int target) {
  return *launch.cores[target - launch.first_core];
}

/// Adds `inc` to the semaphore at `offset` of core `target`; kept as an early signal when
/// that core has not allocated it yet (semaphore.hpp's rule for signals to other cores).
void signal_remote_semaphore(launch_state& launch, int target, std::int64_t offset, std::int32_t inc, int from);

/// Moves a remote copy's bytes, then signals both sides.
void run_remote_task(launch_state& launch, remote_task const& t);

/// Chips as threads of this process: a remote copy is a memcpy between their memories.
class in_process_transport final : public chip_transport {
 public:
  PALLAS_DECL void start(launch_state& launch, remote_task const& t, bool now) override;
  PALLAS_DECL bool progress(launch_state& launch, void const* cell) override;
  PALLAS_DECL bool pending_for(void const* cell) override;
  PALLAS_DECL std::size_t leftovers() override;

 private:
  std::mutex mutex_;
  std::vector<remote_task> pending_;
};

/// One HBM buffer of one chip (an input or output shard), for address translation.
struct hbm_buffer {
  std::byte* base = nullptr;
  std::int64_t bytes = 0;
};

/// The chips of one launch.
struct chip_context {
  static constexpr int max_axes = 4;
  int num_chips = 1;
  int num_axes = 1;
  std::string_view axis_names[max_axes]{};
  int axis_sizes[max_axes]{};
  std::vector<std::vector<hbm_buffer>> buffers;  ///< [chip][operand], same operands on every chip
  chip_transport* transport = nullptr;
  /// pltpu::get_barrier_semaphore()'s id: every core allocates it first, at the same offset.
  std::atomic<std::int64_t> barrier_offset{-1};

  /// The chip's coordinate along axis `a` (row-major: the last axis varies fastest).
  int coordinate(int chip, int a) const noexcept {
    int stride = 1;
    for (int b = num_axes - 1; b > a; --b) stride *= axis_sizes[b];
    return (chip / stride) % axis_sizes[a];
  }
  /// The axis named `name`, or -1.
  int axis_of(std::string_view name) const noexcept {
    for (int a = 0; a < num_axes; ++a)
      if (axis_names[a] == name) return a;
    return -1;
  }
  /// "x, y" (messages).
  std::string axes_list() const;
};

/// Where `p` (an address of core `me`'s kernel) is on global core `target`: the same offset
/// into the same arena or HBM buffer. Null if `p` is in none of them.
std::byte* translate_to_core(core_state const& me, void const* p, core_state const& target);

/// The wait hook (dma_engine.hpp): moves a kept remote copy that signals `cell`.
inline bool progress_remote(launch_state& launch, void const* cell) {
  return launch.chips && launch.chips->transport->progress(launch, cell);
}
inline bool remote_pending_for(launch_state const& launch, void const* cell) {
  return launch.chips && launch.chips->transport->pending_for(cell);
}
/// Whether the launch's chips span processes (chip_transport::spans_processes).
inline bool chips_elsewhere(launch_state const& launch) {
  return launch.chips && launch.chips->transport->spans_processes();
}
/// A core's read of a semaphore (pl::semaphore_read): over MPI, it first takes what other
/// ranks signaled into it, so that a loop polling it sees them.
inline void take_remote_signals(launch_state const& launch, void const* cell) {
  if (chips_elsewhere(launch)) launch.chips->transport->pending_for(cell);
}
/// The wait hook for a core registered as blocked (chip_transport::check_stalled); `since`
/// is set on the wait's first call.
inline void stalled_remote(core_state& core, std::chrono::steady_clock::time_point& since) {
  if (since == std::chrono::steady_clock::time_point{}) since = std::chrono::steady_clock::now();
  core.launch->chips->transport->check_stalled(core, since);
}

}  // namespace pallas::detail

#if PALLAS_DEFINE_RUNTIME
#  include <pallas/detail/runtime/chip_set.ipp>
#endif
