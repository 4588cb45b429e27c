#pragma once
// The DMA engine: started copies are queued on the issuing core and move their bytes no
// later than the wait that needs them, on that core (measured fastest on CPUs: the block
// stays in the core's cache). The schedule (tpu/dma_schedule.hpp) decides when else they
// may move: at start (eager), or in a seeded random order.
//
// Internal API, also used by emit_pipeline:
//   issue_copy(core, task, where)          start a copy (applies the schedule)
//   run_task(core, task, where)            move a copy's bytes now and signal its semaphore
//   run_queued_copy_for(core, cell)        move one queued copy that signals `cell`
//   wait_on_semaphore(core, cell, value, who[, where])
//                                          block until `cell` >= value, then subtract it
//   check_copy_conflicts(core, src, dst, who)   checked mode: a copy against copies in flight

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <thread>

#include <pallas/config.hpp>
#include <pallas/detail/checked_access.hpp>
#include <pallas/detail/checked_state.hpp>
#include <pallas/detail/dma_task.hpp>
#include <pallas/detail/spin_wait.hpp>
#include <pallas/error.hpp>
#include <pallas/tpu/device.hpp>
#include <pallas/tpu/dma_schedule.hpp>

namespace pallas::detail {

/// Moves a copy's bytes now and signals its semaphore (checked mode: verifies and records
/// the move of a tracked copy).
inline void run_task(core_state& core, dma_task const& task, place where = {}) {
  if constexpr (checked_mode) {
    if (task.tracked) core.checked.before_move(task.id, where);
  }
  task.move_bytes();
  if constexpr (checked_mode) {
    if (task.tracked) core.checked.after_move(task.id);
  }
  task.signal();
}

/// Runs the calling core's queued copy at position k.
inline void run_queued_at(core_state& core, std::size_t k, place where) {
  auto& q = core.dma_queue;
  dma_task const task = q[k];
  q.erase(q.begin() + static_cast<std::ptrdiff_t>(k));
  run_task(core, task, where);
}

/// Runs one of the calling core's queued copies that signal `cell` (the oldest, or a random
/// one in the random schedule); false if there is none.
inline bool run_queued_copy_for(core_state& core, std::atomic<std::int32_t>* cell, place where = {}) {
  auto& q = core.dma_queue;
  bool const random = core.launch->schedule.mode == tpu::dma_execution_mode::random;
  std::size_t matches = 0, first = q.size();
  for (std::size_t k = 0; k < q.size(); ++k)
    if (q[k].semaphore == cell) {
      if (matches++ == 0) first = k;
      if (!random) break;
    }
  if (matches == 0) return false;
  if (random && matches > 1) {
    std::size_t pick = static_cast<std::size_t>(next_random(core) % matches);
    for (std::size_t k = first; k < q.size(); ++k)
      if (q[k].semaphore == cell && pick-- == 0) {
        run_queued_at(core, k, where);
        return true;
      }
  }
  run_queued_at(core, first, where);
  return true;
}

/// Random schedule: sometimes completes an unrelated queued copy early.
inline void maybe_complete_early(core_state& core, place where) {
  if (core.launch->schedule.mode != tpu::dma_execution_mode::random || core.dma_queue.empty()) return;
  std::uint64_t const r = next_random(core);
  if ((r & 3) != 0) return;
  run_queued_at(core, static_cast<std::size_t>((r >> 2) % core.dma_queue.size()), where);
}

/// Blocks until `cell` holds at least `value`, then subtracts it. Runs the core's own
/// queued copies that signal it first; polls the launch's abort flag while blocked;
/// reports a deadlock (pallas::deadlock_error) instead of hanging. In checked mode the
/// wait retires the copies whose bytes it consumed.
inline void wait_on_semaphore(core_state& core, std::atomic<std::int32_t>& cell, std::int32_t value, char const* who,
                              place where = {}) {
  if (value < 0) fail("pallas::", who, ": cannot wait for a negative value ", value);
  launch_state& launch = *core.launch;
  if (launch.schedule.mode == tpu::dma_execution_mode::random) {
    perturb(core);
    maybe_complete_early(core, where);
  }
  bool const spin = spinning_pays(launch.num_cores);
  struct wait_scope {  // checked mode: moves inside the wait snapshot when it ends
    checked_state& c;
    explicit wait_scope(checked_state& s) : c(s) { c.in_wait = checked_mode; }
    ~wait_scope() {
      if constexpr (checked_mode) c.wait_ended();
    }
  } scope(core.checked);
  wait_registration blocked(core);
  for (int k = 0;; ++k) {
    std::int32_t cur = cell.load(std::memory_order_acquire);
    if (cur >= value) {
      blocked.leave();
      if (cell.compare_exchange_weak(cur, cur - value, std::memory_order_acq_rel)) {
        if constexpr (checked_mode) core.checked.waited(&cell, value, who, where);
        return;
      }
      continue;
    }
    if (run_queued_copy_for(core, &cell, where)) {  // never while registered: the queue
      k = 0;                                        // held none for `cell` then
      continue;
    }
    launch.check_aborted();
    if (k < 2048 && spin) {
      cpu_relax();
    } else if (k < 4096) {
      std::this_thread::yield();
    } else {
      blocked.enter(&cell, value, who, where);
      blocked.poll([&] { return cell.load(std::memory_order_acquire) < value; });
      std::this_thread::sleep_for(std::chrono::microseconds(k < 8192 ? 10 : 100));
    }
  }
}

/// Starts a copy: queues it, or moves it now when the schedule says so.
inline void issue_copy(core_state& core, dma_task const& task, place where = {}) {
  auto const mode = core.launch->schedule.mode;
  if (mode == tpu::dma_execution_mode::eager) {
    run_task(core, task, where);
    return;
  }
  if (mode == tpu::dma_execution_mode::random) {
    perturb(core);
    if ((next_random(core) & 3) == 0) {
      run_task(core, task, where);
      return;
    }
  }
  core.dma_queue.push_back(task);
}

/// Whether the next issue_copy on this core will move the copy at once (checked mode
/// does not poison the destination of such a copy). Consumes no random number.
inline bool schedule_is_eager(core_state& core) noexcept {
  return core.launch->schedule.mode == tpu::dma_execution_mode::eager;
}

/// Checked mode: a copy (or sync_copy) reading `src` and writing `dst` must not touch the
/// destination, nor write the source, of a copy in flight: on this core, and for HBM, on
/// every core. `who()` names the new copy in the message (only called on a race).
template <class Who>
void check_copy_conflicts(core_state& core, region const& src, region const& dst, Who&& who) {
  std::string hit = core.checked.conflict(&src, &dst);
  if (hit.empty()) {
    bool const src_hbm = !src.empty() && !core.checked.memory.is_local(src.lo);
    bool const dst_hbm = !dst.empty() && !core.checked.memory.is_local(dst.lo);
    if (src_hbm || dst_hbm) {
      launch_state const& launch = *core.launch;
      for (int c = 0; c < launch.num_cores && hit.empty(); ++c) {
        core_state const& other = *launch.cores[c];
        if (&other == &core || other.checked.in_flight.load(std::memory_order_relaxed) == 0) continue;
        hit = other.checked.conflict(src_hbm ? &src : nullptr, dst_hbm ? &dst : nullptr);
      }
    }
  }
  if (!hit.empty()) fail<race_error>("pallas::race: ", who(), ' ', hit, ", before that copy's wait");
}

/// "the copy's" source and destination regions overlap (identical views excepted).
inline bool regions_overlap_unequal(region const& a, region const& b) noexcept {
  bool const same = a.base == b.base && a.run == b.run && a.rank == b.rank && [&] {
    for (int d = 0; d < a.rank; ++d)
      if (a.extents[d] != b.extents[d] || a.strides[d] != b.strides[d]) return false;
    return true;
  }();
  return !same && a.intersects(b);
}

}  // namespace pallas::detail
