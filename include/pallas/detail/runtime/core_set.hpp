// SPDX-License-Identifier: Apache-2.0
#pragma once
// A set of TensorCores that one launch at a time runs on: each core's state (VMEM, SMEM,
// semaphores, DMA engine, checked-mode bookkeeping) and, for cores 1..N-1, a persistent
// std::jthread. The launching thread runs core 0 (waking a thread costs more than the work
// of most launches), and then any core whose parked thread has not started it yet. A
// launch wakes the threads, it does not create them; a set grows to the largest mesh
// launched on it. The device (device.hpp) owns the sets and decides which one a launch
// takes.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <stop_token>
#include <string_view>
#include <thread>
#include <type_traits>
#include <vector>

#include <pallas/config.hpp>
#include <pallas/detail/checked/checked_access.hpp>
#include <pallas/detail/checked/race_detector.hpp>
#include <pallas/detail/runtime/core.hpp>
#include <pallas/detail/runtime/dma_engine_ops.hpp>
#include <pallas/detail/runtime/dma_order.hpp>
#include <pallas/detail/runtime/dma_thread.hpp>
#include <pallas/detail/runtime/end_of_kernel.hpp>
#include <pallas/detail/runtime/executor_tuner.hpp>
#include <pallas/detail/runtime/launch.hpp>
#include <pallas/detail/runtime/random_order.hpp>
#include <pallas/detail/runtime/spin_wait.hpp>
#include <pallas/detail/runtime/wake_slice.hpp>
#include <pallas/error.hpp>
#include <pallas/trace/recorder.hpp>

namespace pallas::detail {

/// What a launch runs on: the cores, their chip's memory limits, the mesh axis name, the
/// DMA order and executor, the interpret conventions, what launched it (for messages), and
/// the launching kernel's executor tuner.
struct launch_config {
  int num_cores = 1;
  std::int64_t vmem_capacity_bytes = 0;
  std::int64_t smem_capacity_bytes = 0;
  std::string_view axis_name;
  dma_order_policy schedule;
  dma_executor_choice executor = dma_executor_choice::automatic;
  launch_conventions conventions;
  char const* who = "pl::kernel";
  std::string_view name = {};  ///< the kernel's name (pl::name), for the trace; empty: `who`
  int cores_per_chip = 0;         ///< several chips: cores per chip (0: one chip of num_cores)
  chip_context* chips = nullptr;  ///< several chips: their shared state (chip_set.hpp)
  int first_core = 0;             ///< several chips, one per process: this chip's first global core
  executor_tuner* tuner = nullptr;  ///< the kernel's measured executor choice (automatic executor)
};

class core_set {
 public:
  /// `slots` numbers the cores of every set of the device (the DMA thread's engine slots).
  explicit core_set(std::atomic<int>& slots) : slots_(slots) {}
  core_set(core_set const&) = delete;
  core_set& operator=(core_set const&) = delete;
  ~core_set();

  /// Runs `job(core)` on cores 0..config.num_cores-1 with the config's per-core VMEM/SMEM
  /// limits, and returns when every core is done. Rethrows the first exception a core
  /// threw. `thread` is the device's DMA thread when this launch uses it; `id` numbers the
  /// launch in messages. One launch at a time: the device hands a set to one launch.
  template <class Job>
  void run(launch_config const& config, std::uint64_t id, dma_thread* thread, Job&& job) {
    using job_type = std::remove_reference_t<Job>;  // may be const: the cast back restores it
    run_erased(config, id, thread, const_cast<void*>(static_cast<void const*>(std::addressof(job))),
               [](void* j, int core) { (*static_cast<job_type*>(j))(core); });
  }

 private:
  /// run() with the job type-erased: the launch machinery below is compiled once per
  /// program, not once per kernel (it is most of a kernel's object code otherwise).
  void run_erased(launch_config const& config, std::uint64_t id, dma_thread* thread, void* job_object,
                  void (*job)(void*, int));

 public:
  /// Cores whose state exists so far (their threads persist between launches).
  int num_cores() const noexcept { return static_cast<int>(cores_.size()); }

  /// Copies smaller than this stay on the core under the automatic executor: handing them to
  /// another thread costs more than it overlaps.
  static constexpr std::int64_t automatic_thread_min_bytes = 16 * 1024;

 private:
  /// The thread of core c >= 1; core 0 runs on the launching thread.
  struct worker {
    explicit worker(core_state& c) : core(c) {}
    core_state& core;
    std::atomic<std::uint32_t> epoch{0};
    std::atomic<std::uint32_t> claimed{0};  ///< the last epoch whose job was started (here or by the launcher)
    std::atomic<bool> parked{false};
    wake_slice_rule slice_rule;  ///< its thread's only
    bool short_slices = false;   ///< what its thread asked the scheduler for last
    std::jthread thread;
  };

  /// Short slices for a worker's thread while it starts launches late (wake_slice.hpp).
  void adapt_slice(worker& self) noexcept;

  void grow(int num_cores);

  void serve(std::stop_token const& stop, worker& self);

  /// Takes the job of `w`'s launch `epoch` for the calling thread; false if the worker or
  /// the launcher took it already. A launch ends only when its jobs are done, so the last
  /// claimed epoch is always the one before.
  static bool claim(worker& w, std::uint32_t epoch) noexcept {
    std::uint32_t before = epoch - 1;
    return w.claimed.compare_exchange_strong(before, epoch, std::memory_order_acq_rel);
  }

  std::atomic<int>& slots_;
  // The race detector of the set's launch (one at a time). It lives with the set, not the
  // launch, so that its memory stays reachable from the device: in the child of a fork
  // during a launch, the launching thread's stack is gone and LeakSanitizer would call the
  // detector's buffers leaked.
  race_detector races_;
  std::vector<std::unique_ptr<core_state>> cores_;
  std::vector<std::unique_ptr<worker>> workers_;
  std::vector<core_state*> core_states_;
  std::vector<std::uint32_t> woken_;  ///< per core: the epoch its parked worker was woken for (0: none)
  std::function<void(core_state&)> job_;
  std::atomic<int> pending_{0};
  std::atomic<bool> spin_{true};
  std::atomic<std::int64_t> posted_ns_{0};  ///< when the launch was posted to the workers (steady clock)
};

}  // namespace pallas::detail

#if PALLAS_DEFINE_RUNTIME
#  include <pallas/detail/runtime/core_set.ipp>
#endif
