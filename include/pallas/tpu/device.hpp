#pragma once
// The device: one persistent std::jthread per TensorCore, each with its own VMEM and SMEM
// arenas, created on first use and reused by every launch. A launch wakes the cores, it
// does not create threads. A core that throws stops the launch: the other cores unwind at
// their next blocking point, the first exception reaches the caller, and the device stays
// usable.
//
// Deadlocks: a core that waits on a semaphore for long registers as blocked. When every
// core of the launch that has not finished is blocked, nothing changes for
// `deadlock_grace`, and every blocked core confirms that its semaphore is still short,
// nothing can signal any of them any more: a pallas::deadlock_error names who waits on
// which semaphore for which value, and the launch unwinds. Checked mode (PALLAS_CHECKED)
// also reports semaphores that are not zero when the kernel ends (pallas::leak_error).

#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <new>
#include <sstream>
#include <string>
#include <stop_token>
#include <string_view>
#include <thread>
#include <type_traits>
#include <vector>

#include <pallas/config.hpp>
#include <pallas/detail/arena.hpp>
#include <pallas/detail/checked_access.hpp>
#include <pallas/detail/checked_state.hpp>
#include <pallas/detail/dma_task.hpp>
#include <pallas/detail/spin_wait.hpp>
#include <pallas/error.hpp>
#include <pallas/tpu/chip.hpp>
#include <pallas/tpu/dma_schedule.hpp>

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
  tpu::dma_schedule schedule;               ///< DMA completion order of this launch
  std::atomic<std::uint64_t> generation{1};  ///< bumped whenever a core blocks, unblocks, finishes
  std::atomic<std::uint64_t> suspect{0};     ///< a generation suspected of being a deadlock
  std::atomic<bool> deadlock_reported{false};

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

/// What a core is doing, for deadlock detection.
enum class run_state : int { running, blocked, finished };

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
  std::vector<dma_task> dma_queue;  ///< copies started and not yet moved (dma_engine.hpp)
  std::uint64_t copy_count = 0;     ///< copies started in this launch (ids when unchecked)
  std::uint64_t random_state = 0;   ///< the core's seeded choices (dma_schedule)
  checked_state checked;            ///< checked mode's bookkeeping (checked_state.hpp)

  /// Bytes of semaphore memory allocated now; read by cores that signal this one.
  std::atomic<std::int64_t> semaphores_allocated{0};

  // Deadlock detection: what the core waits for while it is registered as blocked.
  std::atomic<run_state> state{run_state::running};
  std::atomic<void const*> wait_cell{nullptr};
  std::atomic<std::int32_t> wait_value{0};
  std::atomic<char const*> wait_who{nullptr};
  std::atomic<char const*> wait_file{nullptr};
  std::atomic<int> wait_line{0};
  std::atomic<std::uint64_t> acked{0};  ///< the suspected generation this core confirmed
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

/// The next of the core's seeded random numbers (splitmix64).
inline std::uint64_t next_random(core_state& core) noexcept {
  std::uint64_t z = (core.random_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// In the random schedule, lets other cores run at random here (semaphore operations and
/// copy starts), so that tests see other interleavings.
inline void perturb(core_state& core) {
  auto const& s = core.launch->schedule;
  if (s.mode != tpu::dma_execution_mode::random || !s.yield_cores) return;
  std::uint64_t const r = next_random(core);
  if ((r & 3) == 0)
    std::this_thread::yield();
  else if ((r & 63) == 1)
    std::this_thread::sleep_for(std::chrono::microseconds(20 + static_cast<int>((r >> 8) & 63)));
}

/// How long every running core must stay blocked, with nothing changing, before a
/// deadlock is confirmed.
inline constexpr std::chrono::milliseconds deadlock_grace{50};

/// The semaphore value a core reads: `cell` is the count of a pltpu semaphore.
inline std::int32_t read_cell(void const* cell) noexcept {
  return static_cast<std::atomic<std::int32_t> const*>(cell)->load(std::memory_order_acquire);
}

/// "core 0 waits in semaphore_wait (main.cpp:12) for REGULAR semaphore #0 (scratch) to
/// reach 1, it holds 0"; only while the launch is confirmed deadlocked (nothing moves).
inline std::string describe_blocked_core(core_state& c) {
  std::ostringstream out;
  out << "core " << c.index;
  if (c.state.load(std::memory_order_acquire) == run_state::finished) {
    out << " has finished its body";
    return out.str();
  }
  void const* cell = c.wait_cell.load(std::memory_order_acquire);
  char const* who = c.wait_who.load(std::memory_order_relaxed);
  char const* file = c.wait_file.load(std::memory_order_relaxed);
  out << " waits in " << (who ? who : "a wait");
  if (file) out << " (" << place{file, c.wait_line.load(std::memory_order_relaxed)}.file_name() << ':'
                << c.wait_line.load(std::memory_order_relaxed) << ')';
  out << " for " << c.checked.semaphore_name(cell) << " to reach " << c.wait_value.load(std::memory_order_relaxed)
      << ", it holds " << read_cell(cell);
  return out.str();
}

/// A core's registration as blocked in a semaphore wait (deadlock detection).
class wait_registration {
 public:
  explicit wait_registration(core_state& core) noexcept : core_(core) {}
  ~wait_registration() { leave(); }
  wait_registration(wait_registration const&) = delete;
  wait_registration& operator=(wait_registration const&) = delete;

  bool entered() const noexcept { return entered_; }

  /// Registers the core as blocked on `cell` until it holds `value`.
  void enter(void const* cell, std::int32_t value, char const* who, place where) noexcept {
    if (entered_) return;
    core_.wait_cell.store(cell, std::memory_order_relaxed);
    core_.wait_value.store(value, std::memory_order_relaxed);
    core_.wait_who.store(who, std::memory_order_relaxed);
    core_.wait_file.store(where.file, std::memory_order_relaxed);
    core_.wait_line.store(where.line, std::memory_order_relaxed);
    core_.state.store(run_state::blocked, std::memory_order_seq_cst);
    core_.launch->generation.fetch_add(1, std::memory_order_seq_cst);
    entered_ = true;
    seen_ = 0;
  }

  /// Unregisters; the core is about to act (take its count, move a copy, unwind).
  void leave() noexcept {
    if (!entered_) return;
    core_.state.store(run_state::running, std::memory_order_seq_cst);
    core_.launch->generation.fetch_add(1, std::memory_order_seq_cst);
    entered_ = false;
  }

  /// Called by the registered core between polls; `still_short()` re-reads its semaphore.
  /// Throws pallas::deadlock_error when the deadlock is confirmed.
  template <class Short>
  void poll(Short&& still_short) {
    launch_state& launch = *core_.launch;
    std::uint64_t const g = launch.generation.load(std::memory_order_seq_cst);
    // Confirm a suspicion of this very generation: my semaphore is short after I saw it.
    if (launch.suspect.load(std::memory_order_seq_cst) == g && still_short())
      core_.acked.store(g, std::memory_order_seq_cst);
    for (int c = 0; c < launch.num_cores; ++c)
      if (launch.cores[c]->state.load(std::memory_order_seq_cst) == run_state::running) {
        seen_ = 0;
        return;
      }
    auto const now = std::chrono::steady_clock::now();
    if (g != seen_) {
      seen_ = g;
      since_ = now;
      return;
    }
    if (now - since_ < deadlock_grace) return;
    if (launch.suspect.load(std::memory_order_seq_cst) != g) {
      launch.suspect.store(g, std::memory_order_seq_cst);
      return;  // every blocked core confirms on its next poll
    }
    for (int c = 0; c < launch.num_cores; ++c) {
      core_state& other = *launch.cores[c];
      if (other.state.load(std::memory_order_seq_cst) == run_state::blocked &&
          other.acked.load(std::memory_order_seq_cst) != g)
        return;
    }
    if (launch.generation.load(std::memory_order_seq_cst) != g) return;
    if (launch.deadlock_reported.exchange(true, std::memory_order_acq_rel)) return;
    std::string message =
        "pallas::deadlock: every running core waits on a semaphore that nothing can signal any more: ";
    for (int c = 0; c < launch.num_cores; ++c)
      message += (c ? "; " : "") + describe_blocked_core(*launch.cores[c]);
    fail<deadlock_error>(message);
  }

 private:
  core_state& core_;
  bool entered_ = false;
  std::uint64_t seen_ = 0;
  std::chrono::steady_clock::time_point since_{};
};

/// Checked mode: every semaphore of every core must be zero when the kernel ends.
inline void check_semaphores_zero(launch_state const& launch) {
  std::string found;
  for (int c = 0; c < launch.num_cores; ++c) {
    core_state const& core = *launch.cores[c];
    std::lock_guard lock(core.checked.mutex);
    for (auto const& blk : core.checked.semaphores) {
      for (std::int64_t k = 0; k < blk.count; ++k) {
        void const* cell = core.semaphores.base() + blk.offset + k * blk.element_bytes;
        std::int32_t const v = read_cell(cell);
        if (v != 0)
          found += (found.empty() ? "" : "; ") + core.checked.semaphore_name_locked(cell) + " on core " +
                   std::to_string(core.index) + " holds " + std::to_string(v);
      }
    }
  }
  if (!found.empty())
    fail<leak_error>("pallas::kernel: every semaphore must be zero when the kernel ends, but ", found);
}

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
    state.schedule = tpu::get_dma_schedule();
    // Every core's state is set up before any core runs, since cores read each other's
    // (semaphores, copies in flight, deadlock state). The workers are idle here.
    for (int c = 0; c < num_cores; ++c) {
      core_state& core = *core_states_[static_cast<std::size_t>(c)];
      core.vmem.reset(chip.vmem_capacity_bytes);
      core.smem.reset(chip.smem_capacity_bytes);
      core.semaphores.reset(core_state::semaphore_arena_bytes);
      core.dma_queue.clear();
      core.copy_count = 0;
      core.random_state = state.schedule.seed * 0x2545f4914f6cdd1dull + static_cast<std::uint64_t>(core.index) + 1;
      core.checked.reset(core.index,
                         memory_map{core.vmem.base(), core.vmem.capacity(), core.smem.base(), core.smem.capacity()},
                         core.semaphores.base(), core_state::semaphore_arena_bytes);
      core.state.store(run_state::running, std::memory_order_relaxed);
      core.acked.store(0, std::memory_order_relaxed);
      core.wait_cell.store(nullptr, std::memory_order_relaxed);
      core.semaphores_allocated.store(0, std::memory_order_relaxed);
      core.grid = nullptr;
      core.launch = &state;
    }
    auto run = [&](core_state& core) {
      current_core = &core;
      if constexpr (checked_mode) current_access_checker = &core.checked;
      core_error_context where(core.index);
      scoped_error_context push(where);
      try {
        job(core.index);
      } catch (launch_aborted const&) {
      } catch (...) {
        state.fail_with(std::current_exception());
      }
      core.state.store(run_state::finished, std::memory_order_seq_cst);
      state.generation.fetch_add(1, std::memory_order_seq_cst);
      current_access_checker = nullptr;
      current_core = nullptr;
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
    for (int c = 0; c < num_cores; ++c) core_states_[static_cast<std::size_t>(c)]->launch = nullptr;
    if (state.first_error) std::rethrow_exception(state.first_error);
    if constexpr (checked_mode) check_semaphores_zero(state);
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
