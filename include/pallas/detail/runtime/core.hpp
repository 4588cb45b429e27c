// SPDX-License-Identifier: Apache-2.0
#pragma once
// One TensorCore's run-time state: its VMEM, SMEM and semaphore memory, the launch it is
// running, the grid step it is in, its DMA engine and its checked-mode bookkeeping; and the
// thread-local "which core am I".

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <pallas/detail/checked/checked_state.hpp>
#include <pallas/detail/runtime/arena.hpp>
#include <pallas/detail/runtime/dma_engine.hpp>
#include <pallas/error.hpp>
#include <pallas/shape.hpp>

namespace pallas::detail {

/// What every core reserves for VMEM and SMEM (pages are committed only when touched); each
/// launch enforces its chip's smaller capacity. The largest VMEM of any chip (v5e, v6e).
inline constexpr std::int64_t reserved_vmem_bytes = std::int64_t{128} << 20;
inline constexpr std::int64_t reserved_smem_bytes = std::int64_t{1} << 20;

struct launch_state;

/// The program ids of the grid step a core is running (pushed by pipelines).
struct grid_frame {
  static constexpr int max_rank = 8;
  int rank = 0;
  index_t program_id[max_rank]{};
  index_t num_programs[max_rank]{};
  grid_frame const* outer = nullptr;
};

/// What a core is doing, for deadlock detection.
enum class run_state : int { running, blocked, finished };

/// A core's registration as blocked (deadlock.hpp): whether it is registered, and the
/// launch generation it last saw with the time it saw it.
struct wait_watch {
  bool entered = false;
  std::uint64_t seen = 0;
  std::chrono::steady_clock::time_point since{};
};

/// A core reading one semaphore again and again (a polling loop): which, the value it keeps
/// seeing, how many reads in a row, and its registration once it counts as waiting.
struct semaphore_poll {
  void const* cell = nullptr;
  std::int32_t value = 0;
  int reads = 0;
  wait_watch watch;
  std::chrono::steady_clock::time_point stalled_since{};  ///< chips over MPI: when this poll began waiting
};

/// A signal another core sent to a semaphore this core has not allocated yet (one of a
/// run_scoped it has not reached): applied when it allocates the semaphore (semaphore.hpp).
struct early_signal {
  std::int64_t offset;  ///< the semaphore's id: its offset in the semaphore arena
  std::int32_t inc;
  int from;             ///< the signaling core
  std::string name;     ///< the semaphore as the signaling core names it
};

/// One TensorCore: its memories and what it is running.
struct core_state {
  explicit core_state(int index)
      : index(index), vmem("VMEM", reserved_vmem_bytes), smem("SMEM", reserved_smem_bytes),
        semaphores("SEMAPHORE", semaphore_arena_bytes) {}

  static constexpr std::int64_t semaphore_arena_bytes = 1 << 18;

  int index;
  int dma_slot = 0;  ///< the core's engine slot in the device's DMA thread (unique per device)
  arena vmem;
  arena smem;
  arena semaphores;  ///< same layout on every core: a semaphore has one id on all cores
  launch_state* launch = nullptr;
  grid_frame const* grid = nullptr;
  dma_engine dma;                   ///< every copy the core starts (dma_engine.hpp)
  checked_state checked;            ///< checked mode's bookkeeping (checked_state.hpp)

  /// Bytes of semaphore memory allocated now; read by cores that signal this one. Changed,
  /// and early signals applied, under `early_mutex`.
  std::atomic<std::int64_t> semaphores_allocated{0};
  std::mutex early_mutex;
  std::vector<early_signal> early_signals;

  // Deadlock detection: what the core waits for while it is registered as blocked.
  std::atomic<run_state> state{run_state::running};
  std::atomic<void const*> wait_cell{nullptr};
  std::atomic<std::int32_t> wait_value{0};
  std::atomic<char const*> wait_who{nullptr};
  std::atomic<char const*> wait_file{nullptr};
  std::atomic<int> wait_line{0};
  std::atomic<std::uint64_t> acked{0};  ///< the suspected generation this core confirmed
  semaphore_poll poll;                   ///< only the core's own thread touches it
};

/// The core the calling thread is, or nullptr outside kernels.
inline thread_local core_state* current_core = nullptr;

/// While an index map is evaluated for a plan: the grid point it is called at, so that
/// pl::program_id and pl::num_programs work inside index maps too.
inline thread_local grid_frame const* index_map_frame = nullptr;

/// The current core; throws when called outside a kernel.
inline core_state& this_core(std::string_view what) {
  if (!current_core) fail("pallas::", what, ": called outside a kernel");
  return *current_core;
}

/// Names the core in error messages raised while it runs.
class core_error_context final : public error_context {
 public:
  explicit core_error_context(int core);
  explicit core_error_context(std::string core) : core_(std::move(core)) {}
  PALLAS_DECL void describe(std::ostream& out) const override;

 private:
  std::string core_;
};

}  // namespace pallas::detail

#if PALLAS_DEFINE_RUNTIME
#  include <pallas/detail/runtime/core.ipp>
#endif
