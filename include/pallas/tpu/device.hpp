#pragma once
// The device: one persistent std::jthread per TensorCore, each with its own VMEM and SMEM
// arenas, created on first use and reused by every launch. A launch wakes the cores, it
// does not create threads. A core that throws stops the launch: the other cores unwind at
// their next blocking point, the first exception reaches the caller, and the device stays
// usable.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <stop_token>
#include <string_view>
#include <thread>
#include <type_traits>
#include <vector>

#include <pallas/detail/arena.hpp>
#include <pallas/detail/dma_task.hpp>
#include <pallas/detail/spin_wait.hpp>
#include <pallas/error.hpp>
#include <pallas/tpu/chip.hpp>

namespace pallas::detail {

/// Thrown inside a core when another core failed: it unwinds the core without being
/// reported (the first real exception is what the caller sees).
struct launch_aborted {};

struct core_state;

/// What every core of one launch shares.
struct launch_state {
  int num_cores = 1;
  core_state* const* cores = nullptr;  ///< every core of the launch, by index
  std::atomic<int> arrived{0};         ///< for start_barrier
  std::string_view axis_name;
  std::atomic<bool> aborted{false};
  std::mutex error_mutex;
  std::exception_ptr first_error;

  /// Records the first failure and tells every core to stop.
  void fail_with(std::exception_ptr e) {
    {
      std::lock_guard lock(error_mutex);
      if (!first_error) first_error = std::move(e);
    }
    aborted.store(true, std::memory_order_release);
  }

  /// Unwinds the calling core if the launch was stopped; called at blocking points.
  void check_aborted() const {
    if (aborted.load(std::memory_order_acquire)) throw launch_aborted{};
  }

  /// Every core waits here once, after allocating its scratch and before its body runs, so
  /// that no core signals a semaphore another core has not yet allocated.
  void start_barrier() {
    arrived.fetch_add(1, std::memory_order_acq_rel);
    // A failing core never arrives, so poll the abort flag instead of parking.
    for (int k = 0; arrived.load(std::memory_order_acquire) < num_cores; ++k) {
      check_aborted();
      if (k < 4096 && spinning_pays(num_cores))
        cpu_relax();
      else if (k < 8192)
        std::this_thread::yield();
      else
        std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
  }
};

/// The program ids of the grid step a core is running (pushed by pipelines).
struct grid_frame {
  static constexpr int max_rank = 8;
  int rank = 0;
  index_t program_id[max_rank]{};
  index_t num_programs[max_rank]{};
  grid_frame const* outer = nullptr;
};

/// One TensorCore: its memories and what it is running.
struct core_state {
  explicit core_state(int index)
      : index(index), vmem("VMEM", tpu::max_vmem_capacity_bytes), smem("SMEM", 1 << 20),
        semaphores("SEMAPHORE", semaphore_arena_bytes) {}

  static constexpr std::int64_t semaphore_arena_bytes = 1 << 18;

  int index;
  arena vmem;
  arena smem;
  arena semaphores;  ///< same layout on every core: a semaphore has one id on all cores
  launch_state* launch = nullptr;
  grid_frame const* grid = nullptr;
  std::vector<dma_task> dma_queue;  ///< copies started and not yet moved (dma.hpp)
};

/// The core the calling thread is, or nullptr outside kernels.
inline thread_local core_state* current_core = nullptr;

/// The current core; throws when called outside a kernel.
inline core_state& this_core(std::string_view what) {
  if (!current_core) fail("pallas::", what, ": called outside a kernel");
  return *current_core;
}

/// Names the core in error messages raised while it runs.
class core_error_context final : public error_context {
 public:
  explicit core_error_context(int core) : core_(core) {}
  void describe(std::ostream& out) const override { out << "core " << core_; }

 private:
  int core_;
};

class device {
 public:
  /// The process-wide device: started on first use, shut down at exit.
  static device& instance() {
    static device d;
    return d;
  }

  device() = default;
  device(device const&) = delete;
  device& operator=(device const&) = delete;
  ~device() {
    for (auto& w : workers_) w->thread.request_stop();
    for (auto& w : workers_) {
      w->epoch.fetch_add(1, std::memory_order_release);
      w->epoch.notify_one();
    }
    workers_.clear();  // joins
  }

  /// Runs `job(core)` on cores 0..num_cores-1 with per-core VMEM/SMEM limits of `chip`,
  /// and returns when every core is done. Rethrows the first exception a core threw.
  template <class Job>
  void launch(int num_cores, tpu::TpuInfo const& chip, std::string_view axis_name, Job&& job) {
    if (current_core)
      fail("pallas::kernel: a kernel cannot be launched from inside a kernel (core ",
           current_core->index, ")");
    if (num_cores < 1) fail("pallas::kernel: a mesh needs at least one core, got ", num_cores);
    std::lock_guard serial(launch_mutex_);  // one launch at a time per device
    grow(num_cores);

    launch_state state;
    state.num_cores = num_cores;
    core_states_.resize(static_cast<std::size_t>(num_cores));
    for (int c = 0; c < num_cores; ++c) core_states_[static_cast<std::size_t>(c)] = &workers_[static_cast<std::size_t>(c)]->core;
    state.cores = core_states_.data();
    state.axis_name = axis_name;
    auto run = [&](core_state& core) {
      core.vmem.reset(chip.vmem_capacity_bytes);
      core.smem.reset(chip.smem_capacity_bytes);
      core.semaphores.reset(core_state::semaphore_arena_bytes);
      core.dma_queue.clear();
      core.launch = &state;
      core.grid = nullptr;
      current_core = &core;
      core_error_context where(core.index);
      scoped_error_context push(where);
      try {
        job(core.index);
      } catch (launch_aborted const&) {
      } catch (...) {
        state.fail_with(std::current_exception());
      }
      current_core = nullptr;
      core.launch = nullptr;
    };
    job_ = std::function<void(core_state&)>(std::ref(run));
    spin_.store(spinning_pays(num_cores + 1), std::memory_order_relaxed);
    pending_.store(num_cores, std::memory_order_relaxed);
    for (int c = 0; c < num_cores; ++c) {
      workers_[c]->epoch.fetch_add(1, std::memory_order_release);
      workers_[c]->epoch.notify_one();
    }
    for (int left = num_cores; left != 0;) left = wait_for_change(pending_, left, spin_.load(std::memory_order_relaxed));
    job_ = nullptr;
    if (state.first_error) std::rethrow_exception(state.first_error);
  }

  /// Cores started so far.
  int num_threads() const noexcept { return static_cast<int>(workers_.size()); }

 private:
  struct worker {
    explicit worker(int index) : core(index) {}
    core_state core;
    std::atomic<std::uint32_t> epoch{0};
    std::jthread thread;
  };

  void grow(int num_cores) {
    while (static_cast<int>(workers_.size()) < num_cores) {
      auto w = std::make_unique<worker>(static_cast<int>(workers_.size()));
      worker* self = w.get();
      w->thread = std::jthread([this, self](std::stop_token stop) { serve(stop, *self); });
      workers_.push_back(std::move(w));
    }
  }

  void serve(std::stop_token const& stop, worker& self) {
    std::uint32_t seen = 0;
    for (;;) {
      seen = wait_for_change(self.epoch, seen, spin_.load(std::memory_order_relaxed));
      if (stop.stop_requested()) return;
      job_(self.core);
      if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) pending_.notify_one();
    }
  }

  std::mutex launch_mutex_;
  std::vector<std::unique_ptr<worker>> workers_;
  std::vector<core_state*> core_states_;
  std::function<void(core_state&)> job_;
  std::atomic<int> pending_{0};
  std::atomic<bool> spin_{true};
};

}  // namespace pallas::detail
