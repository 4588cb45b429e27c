// SPDX-License-Identifier: Apache-2.0
#pragma once
// What the trace records: spans (a grid step, a copy in flight, a semaphore wait) on a core's
// tracks, each with its wall time and the recording thread's CPU time, grouped by launch.

#include <cstdint>
#include <string>
#include <string_view>

#include <time.h>

#include <chrono>

#include <pallas/config.hpp>

namespace pallas::trace {

/// One span of a core's timeline.
struct event {
  std::string name;          ///< what the span is, e.g. "step (0, 1)", "in_specs[0] fetch of block (1, 0) (slot 1)"
  std::uint64_t launch = 0;  ///< the launch's number (as in error messages, "launch #3"); 0: none
  int core = 0;      ///< the TensorCore it ran on
  bool dma = false;  ///< on one of the core's DMA tracks, else its compute track
  int lane = 0;           ///< which DMA track of the core (one per operand)
  std::string lane_name;  ///< the DMA track's label, e.g. "in_specs[0]"
  std::string category;   ///< "step", "pipeline_copy", "dma_thread", "async_copy", "sync_copy", "semaphore_wait"
  std::int64_t begin_ns = 0;  ///< wall-clock start (steady_clock, ns)
  std::int64_t end_ns = 0;    ///< wall-clock end (steady_clock, ns)
  /// CPU time the recording thread used during the span (CLOCK_THREAD_CPUTIME_ID); well
  /// below end_ns - begin_ns when the thread slept or was descheduled. -1: not measured.
  std::int64_t cpu_ns = -1;
  std::int64_t bytes = -1;  ///< bytes a copy or semaphore wait moved or consumed, else -1
  std::string operand;      ///< what a copy moved: the operand's name, or the copy's source and destination
  std::string point;        ///< the grid point the span belongs to, "(i, j)", or empty outside a grid
};

/// One launch of a kernel (pl::kernel or pl::pallas_call) while tracing was on.
struct launch_info {
  std::uint64_t id = 0;  ///< the launch's number
  std::string name;      ///< the kernel's name (pl::name(...)), else what launched it
  std::string who;       ///< "pl::kernel" or "pl::pallas_call"
  int num_cores = 1;         ///< the cores it ran on
  int cores_per_chip = 0;    ///< pl::shard_map: each chip's cores (0: one chip)
  int first_core = 0;        ///< pl::shard_map: the first core's number in the mesh (MPI: the rank's chip)
  std::int64_t begin_ns = 0;  ///< wall-clock start (steady_clock, ns)
  std::int64_t end_ns = 0;    ///< wall-clock end (steady_clock, ns)
  std::int64_t cpu_ns = -1;  ///< the launching thread's CPU time over the launch (core 0 runs there)
  bool dma_thread = false;   ///< the DMA thread served its copies (else every copy moved on its core)

  /// "#3 matmul (pl::pallas_call, 2 cores)".
  [[gnu::cold]] std::string label() const;
};

}  // namespace pallas::trace

namespace pallas::detail {

inline std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// The calling thread's CPU time (a system call: only when tracing is on).
inline std::int64_t thread_cpu_ns() {
  timespec ts{};
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return -1;
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

/// A span's CPU time from the thread's CPU clock at its start.
inline std::int64_t cpu_since(std::int64_t cpu_begin) {
  if (cpu_begin < 0) return -1;
  std::int64_t const now = thread_cpu_ns();
  return now < 0 ? -1 : now - cpu_begin;
}

}  // namespace pallas::detail

#if PALLAS_DEFINE_RUNTIME
#  include <pallas/trace/event.ipp>
#endif
