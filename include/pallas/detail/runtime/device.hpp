// SPDX-License-Identifier: Apache-2.0
#pragma once
// The device: the process-wide owner of the TensorCores kernels run on, created on first
// use, reused by every launch and never destroyed (see instance()). Its cores live in core sets (core_set.hpp): persistent
// threads, one set per launch that runs at the same time as another. A core that throws
// stops the launch: the other cores unwind at their next blocking point, the first
// exception reaches the caller, and the device stays usable. Checked mode (PALLAS_CHECKED)
// also reports semaphores that are not zero when the kernel ends (pallas::leak_error).
//
// Launches from several threads take turns on the primary set. A launch that finds it
// busy for longer than `spill_after` runs on a spare set instead (created on first need,
// then kept), so no launch ever waits for another one to finish: a thread that a kernel
// body starts, launches from and joins would otherwise wait forever for the launch that
// waits for it. The library cannot tell such a thread from any other (it cannot know who
// started a thread), so the rule holds for every thread; the result of a launch does not
// depend on the set it ran on. A kernel body itself cannot launch (its own cores are busy
// running it): that is an error naming the running launch.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include <pallas/detail/runtime/core.hpp>
#include <pallas/detail/runtime/core_set.hpp>
#include <pallas/detail/runtime/dma_order.hpp>
#include <pallas/detail/runtime/dma_thread.hpp>
#include <pallas/detail/runtime/executor_tuner.hpp>
#include <pallas/detail/runtime/fork_guard.hpp>
#include <pallas/detail/runtime/launch.hpp>
#include <pallas/detail/runtime/runtime_settings.hpp>
#include <pallas/detail/runtime/spin_wait.hpp>
#include <pallas/error.hpp>

namespace pallas::detail {

class device {
 public:
  /// How long a launch waits for the primary core set before it takes a spare one.
  static constexpr std::chrono::milliseconds spill_after{10};

  /// The process-wide device, created on first use and never destroyed: its threads park
  /// between launches and end with the process, so a kernel launched from an atexit handler
  /// or a static destructor (which may run after any other static's destructor) finds it
  /// whole, and exit never waits for a thread. It stays reachable (from `current_`), so
  /// LeakSanitizer does not count it as a leak.
  ///
  /// After fork(), the child has none of the device's threads: its first launch gets a
  /// device of its own. The parent's stays untouched (and reachable) in the child.
  static device& instance();

  device() = default;
  device(device const&) = delete;
  device& operator=(device const&) = delete;
  ~device();

  /// Runs `job(core)` on cores 0..config.num_cores-1 and returns when every core is done;
  /// rethrows the first exception a core threw (core_set::run).
  template <class Job>
  void launch(launch_config const& config, Job&& job) {
    if (core_state const* running = current_core)
      fail("pallas::kernel: a kernel cannot be launched from inside a kernel (this body runs on core ", running->index,
           " of launch #", running->launch->id, ", a ", running->launch->who, " on ", running->launch->num_cores,
           running->launch->num_cores == 1 ? " core" : " cores", "); launch it after that kernel returns, from "
           "the code that called it");
    if (config.num_cores < 1) fail("pallas::kernel: a mesh needs at least one core, got ", config.num_cores);
    require_matching_runtime();
    std::uint64_t const id = launches_.fetch_add(1, std::memory_order_relaxed) + 1;
    set_lease lease(*this);
    executor_timing timing(*this, config);
    lease.set->run(config, id, timing.thread, job);
    timing.finished();
  }

  /// Cores whose state exists so far, in every core set (their threads persist between
  /// launches).
  int num_threads() const;

  /// Core sets beyond the primary one (created when launches overlapped).
  int num_spare_sets() const;

  /// Copies smaller than this stay on the core under the automatic executor.
  static constexpr std::int64_t automatic_thread_min_bytes = core_set::automatic_thread_min_bytes;

 private:
  struct spare {
    explicit spare(std::atomic<int>& slots) : set(slots) {}
    core_set set;
    bool busy = false;  ///< guarded by spares_mutex_
  };

  /// A core set taken for one launch: the primary one if it is free within spill_after,
  /// else a free spare one, else a new spare one.
  struct set_lease {
    explicit set_lease(device& d);
    ~set_lease();
    set_lease(set_lease const&) = delete;
    set_lease& operator=(set_lease const&) = delete;

    device& dev;
    core_set* set = nullptr;
    spare* taken = nullptr;
  };

  /// The DMA thread when this launch may use it (automatic: a CPU to spare for it, and the
  /// thread was not found starved of CPU lately; dma_thread.hpp).
  dma_thread* dma_thread_for(launch_config const& config);

  /// A launch's DMA thread (or none): under the automatic executor with a DMA thread to
  /// have, the kernel's tuner picks between it and the cores and is told the launch's time
  /// (executor_tuner.hpp). A launch that throws is not counted.
  struct executor_timing {
    executor_timing(device& d, launch_config const& config);
    void finished();

    dma_thread* thread = nullptr;
    executor_tuner* tuner = nullptr;
    executor_tuner::executor picked = executor_tuner::executor::dma_thread;
    std::chrono::steady_clock::time_point start;
  };

  static std::mutex& creation_mutex() noexcept { return creation_mutex_; }

  /// In the child of a fork (creation_mutex_ held): the device's threads do not exist
  /// here, so the next instance() makes a new device. The old one is never touched again
  /// (joining or waking its threads would hang) and stays on a list, reachable.
  static void abandon_in_child() noexcept;

  // Constant-initialized and trivially destructible: usable until the process ends.
  inline static constinit std::atomic<device*> current_{nullptr};
  inline static constinit std::mutex creation_mutex_{};
  inline static constinit device* abandoned_ = nullptr;  ///< parents' devices, in a child of fork
  device* next_abandoned_ = nullptr;

  std::atomic<int> slots_{0};  ///< engine slots handed out to cores (core_state::dma_slot)
  std::atomic<std::uint64_t> launches_{0};
  std::mutex primary_mutex_;
  std::condition_variable primary_free_;
  bool primary_busy_ = false;
  std::unique_ptr<core_set> primary_ = std::make_unique<core_set>(slots_);
  mutable std::mutex spares_mutex_;
  std::vector<std::unique_ptr<spare>> spares_;
  std::mutex dma_thread_mutex_;
  std::unique_ptr<dma_thread> dma_thread_;
};

}  // namespace pallas::detail

#if PALLAS_DEFINE_RUNTIME
#  include <pallas/detail/runtime/device.ipp>
#endif
