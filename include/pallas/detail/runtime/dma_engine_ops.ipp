// SPDX-License-Identifier: Apache-2.0
#pragma once
// The DMA engine's operations, compiled once per program under separate compilation
// (config.hpp) and inline in every translation unit otherwise.

#include <pallas/detail/runtime/dma_engine_ops.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include <pallas/detail/checked/checked_state.hpp>
#include <pallas/detail/runtime/deadlock.hpp>
#include <pallas/detail/runtime/dma_shared_copies.hpp>
#include <pallas/detail/runtime/dma_thread.hpp>
#include <pallas/detail/runtime/polling.hpp>
#include <pallas/detail/runtime/random_order.hpp>
#include <pallas/detail/runtime/spin_wait.hpp>
#include <pallas/trace/recorder.hpp>

namespace pallas::detail {

PALLAS_DECL void dma_engine::reset(dma_order_policy order, std::uint64_t core_seed, dma_thread* thread,
                                   std::int64_t thread_min_bytes) {
  quiesce();
  queue_.clear();
  if (thread) attached_thread_ = thread;
  {
    auto const lock = shared_mutex_.lock_from_core(attached_thread_);
    shared_.clear();
    for (auto& c : pool_) c.in_use = false;
  }
  order_ = order;
  thread_ = order.order == dma_order::on_wait ? thread : nullptr;
  thread_min_bytes_ = thread_min_bytes;
  copy_count_ = 0;
  random_state_ = core_seed;
}

/// Moves a copy's bytes now and signals its semaphore (checked mode: verifies and records
/// the move of a tracked copy).
PALLAS_DECL void dma_engine::run_now(core_state& core, dma_task const& task, place where) {
  if constexpr (checked_mode) {
    if (task.tracked) core.checked.before_move(task.id, where);
  }
  task.move_bytes();
  if constexpr (checked_mode) {
    if (task.tracked) core.checked.after_move(task.id);
  }
  task.signal();
}

// The copy runs where it is queued and leaves the queue after, even when it throws: copied
// out first (256 bytes, in 64-byte blocks), its fields read back at once stalled the core,
// about 10 ns of a 4 KiB round trip. Nothing a copy runs touches the queue.
PALLAS_DECL void dma_engine::run_queued_at(core_state& core, std::size_t k, place where) {
  struct leave_queue {
    std::vector<dma_task>& queue;
    std::size_t k;
    ~leave_queue() { queue.erase(queue.begin() + static_cast<std::ptrdiff_t>(k)); }
  } const leave{queue_, k};
  run_now(core, queue_[k], where);
}

/// Runs one queued copy that signals `cell` (the oldest, or a random one in the random
/// order); false if there is none.
PALLAS_DECL bool dma_engine::run_queued_for(core_state& core, std::atomic<std::int32_t> const* cell, place where) {
  bool const random = order_.order == dma_order::random;
  std::size_t matches = 0, first = queue_.size();
  for (std::size_t k = 0; k < queue_.size(); ++k)
    if (queue_[k].semaphore == cell) {
      if (matches++ == 0) first = k;
      if (!random) break;
    }
  if (matches == 0) return false;
  if (random && matches > 1) {
    auto pick = static_cast<std::size_t>(next_random() % matches);
    for (std::size_t k = first; k < queue_.size(); ++k)
      if (queue_[k].semaphore == cell && pick-- == 0) {
        run_queued_at(core, k, where);
        return true;
      }
  }
  run_queued_at(core, first, where);
  return true;
}

/// Random order: sometimes completes an unrelated queued copy early.
PALLAS_DECL void dma_engine::maybe_complete_early(core_state& core, place where) {
  if (order_.order != dma_order::random || queue_.empty()) return;
  std::uint64_t const r = next_random();
  if ((r & 3) != 0) return;
  run_queued_at(core, static_cast<std::size_t>((r >> 2) % queue_.size()), where);
}

// `task` by reference, copied once where it is kept: taken by value, the 256-byte task the
// caller had just written field by field was copied into the argument area and again into
// the queue, 15-20 ns of a 4 KiB round trip (benchmarks/dma_roundtrip.cpp: 80 ns against
// 99 ns).
PALLAS_DECL void dma_engine::start(core_state& core, dma_task const& task, place where) {
  end_polling(core);
  ++copy_count_;
  std::uint64_t const id = task.tracked ? task.id : copy_count_;
  auto const numbered = [&] {
    dma_task t = task;
    t.id = id;
    return t;
  };
  if constexpr (checked_mode) {
    if (core.checked.races)
      core.checked.race_copy(task.src_region(), task.dst_region(), task.semaphore,
                             where.known() ? "async copy" : "pipeline copy", where);
  }
  if (order_.order == dma_order::eager) {
    run_now(core, numbered(), where);
    return;
  }
  if (order_.order == dma_order::random) {
    perturb(core);
    if ((next_random() & 3) == 0) {
      run_now(core, numbered(), where);
      return;
    }
  }
  // Under the automatic executor (thread_min_bytes_ > 0) a thread found starved mid-launch
  // gets no more of this launch's copies (dma_thread_health).
  if (thread_ && !task.tracked && !task.streaming && task.bytes >= thread_min_bytes_ &&
      !(thread_min_bytes_ > 0 && dma_thread_health::starved())) {
    publish(numbered(), core.launch->id);
    return;
  }
  queue_.push_back(task);
  queue_.back().id = id;
}

PALLAS_DECL void dma_engine::wait(core_state& core, std::atomic<std::int32_t>& cell, std::int32_t value,
                                  char const* who, place where) {
  if (value < 0) fail("pallas::", who, ": cannot wait for a negative value ", value);
  end_polling(core);
  launch_state& launch = *core.launch;
  if (order_.order == dma_order::random) {
    perturb(core);
    maybe_complete_early(core, where);
  }
  // Whether a spin pays (this launch's cores alone, and with the DMA thread), asked when a
  // spin is near: most waits find their copy queued and never spin.
  auto const spin = [&] { return spinning_pays(launch.num_cores); };
  auto const spin_on_thread = [&] { return spinning_pays(launch.num_cores + 1); };
  struct wait_scope {  // checked mode: moves inside the wait snapshot when it ends
    checked_state& c;
    explicit wait_scope(checked_state& s) : c(s) { c.in_wait = checked_mode; }
    ~wait_scope() {
      if constexpr (checked_mode) c.wait_ended();
    }
  } scope(core.checked);
  wait_registration blocked(core);
  std::chrono::steady_clock::time_point stalled_since{};  // multi-process chips: when this wait began blocking
  for (int k = 0;; ++k) {
    std::int32_t cur = cell.load(std::memory_order_acquire);
    if (cur >= value) {
      blocked.leave();
      if (cell.compare_exchange_weak(cur, cur - value, std::memory_order_acq_rel)) {
        if constexpr (checked_mode) {
          core.checked.race_acquire(&cell);
          core.checked.waited(&cell, value, who, where);
        }
        return;
      }
      continue;
    }
    // Never while registered as blocked: the queues held nothing for `cell` then.
    if (help(&cell) || run_queued_for(core, &cell, where)) {
      k = 0;
      continue;
    }
    if (remote_pending_for(launch, &cell)) {  // a remote copy that signals `cell`: move it here
      blocked.leave();
      progress_remote(launch, &cell);
      k = 0;
      continue;
    }
    launch.check_aborted();
    if (shared_copy* c = in_flight_for(&cell)) {
      // The DMA thread moves its last chunks: spin while it has a CPU, else sleep on it.
      blocked.leave();
      auto const deadline = std::chrono::steady_clock::now() + spin_budget;
      std::int32_t seen = c->done.load(std::memory_order_acquire);
      bool const spin_here = spin_on_thread();
      for (int s = 1; spin_here && seen < c->chunks; ++s) {
        cpu_relax();
        seen = c->done.load(std::memory_order_acquire);
        if ((s & 63) == 0 && std::chrono::steady_clock::now() > deadline) break;
      }
      if (seen < c->chunks) {
        thread_->lend_priority();  // the thread may be preempted holding a chunk
        auto const slept = std::chrono::steady_clock::now();
        c->sleeping.store(true, std::memory_order_seq_cst);
        seen = c->done.load(std::memory_order_seq_cst);
        if (seen < c->chunks) c->done.wait(seen, std::memory_order_acquire);
        c->sleeping.store(false, std::memory_order_relaxed);
        dma_thread_health::note_wait(std::chrono::steady_clock::now() - slept);
      }
      k = 0;
      continue;
    }
    if (launch.interleave.active()) {  // the cores take turns: let another run, or report the deadlock
      blocked.enter(&cell, value, who, where);
      if (!interleave_block(core)) report_deadlock(launch);
      blocked.leave();
      k = 0;
      continue;
    }
    if (k < 2048 && spin()) {
      cpu_relax();
    } else if (k < 4096) {
      std::this_thread::yield();
    } else {
      blocked.enter(&cell, value, who, where);
      blocked.poll([&] {
        return cell.load(std::memory_order_acquire) < value && !remote_pending_for(launch, &cell) &&
               !chips_elsewhere(launch);  // over MPI, another rank may still signal it: a timeout decides
      });
      if (launch.chips) stalled_remote(core, stalled_since);
      std::this_thread::sleep_for(std::chrono::microseconds(k < 8192 ? 10 : 100));
    }
  }
}

/// The end of a core's body. Checked mode: a copy started and never waited is an error
/// (pallas::leak_error naming the copy, where it started, and the core). Copies still
/// queued move now (unchecked mode, and copies the checked registry does not track).
PALLAS_DECL void dma_engine::finish(core_state& core) {
  if constexpr (checked_mode) {
    std::string const left = core.checked.unwaited();
    if (!left.empty()) fail<leak_error>("pallas::kernel: copies were started and never waited: ", left);
  }
  std::size_t unwaited = queue_.size();
  for (auto const& task : queue_) task.run();
  queue_.clear();
  {
    auto const lock = shared_mutex_.lock_from_core(attached_thread_);
    prune_locked();
    unwaited += shared_.size();
  }
  quiesce();
  if (checked_mode && unwaited != 0)
    fail<leak_error>("pallas::kernel: ", unwaited, " copies were started and never waited");
}

PALLAS_DECL void dma_engine::copy_now(core_state& core, dma_task task, place where, std::mutex* serialize) {
  ++copy_count_;
  if (!task.tracked) task.id = copy_count_;
  if constexpr (checked_mode) {
    if (core.checked.races) core.checked.race_copy(task.src_region(), task.dst_region(), nullptr, "sync_copy", where);
  }
  if (order_.order == dma_order::random) perturb(core);
  if (serialize) {
    std::lock_guard const serial(*serialize);
    run_now(core, task, where);
  } else {
    run_now(core, task, where);
  }
}

PALLAS_DECL bool regions_overlap_unequal(region const& a, region const& b) noexcept {
  bool const same = a.base == b.base && a.run == b.run && a.rank == b.rank && [&] {
    for (int d = 0; d < a.rank; ++d)
      if (a.extents[d] != b.extents[d] || a.strides[d] != b.strides[d]) return false;
    return true;
  }();
  return !same && a.intersects(b);
}

}  // namespace pallas::detail
