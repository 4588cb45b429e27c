// SPDX-License-Identifier: Apache-2.0
#pragma once
// The DMA engine's copies shared with the DMA thread, compiled once per program under
// separate compilation (config.hpp) and inline in every translation unit otherwise.

#include <pallas/detail/runtime/dma_shared_copies.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include <pallas/detail/runtime/dma_task.hpp>
#include <pallas/detail/runtime/dma_thread.hpp>
#include <pallas/detail/runtime/spin_wait.hpp>
#include <pallas/trace/recorder.hpp>

namespace pallas::detail {

PALLAS_DECL void dma_engine::prune_locked() {
  // Copies whose chunks all moved and that no thread holds any more go back to the pool.
  auto done = [](shared_copy* c) {
    return c->done.load(std::memory_order_acquire) >= c->chunks && c->users.load(std::memory_order_acquire) == 0;
  };
  for (shared_copy* c : shared_)
    if (done(c)) c->in_use = false;
  std::erase_if(shared_, done);
}

PALLAS_DECL void dma_engine::publish(dma_task const& task, std::uint64_t launch) {
  {
    auto const lock = shared_mutex_.lock_from_core(attached_thread_);
    prune_locked();
    shared_copy* slot = nullptr;
    for (auto& c : pool_)
      if (!c.in_use) {
        slot = &c;
        break;
      }
    if (!slot) slot = &pool_.emplace_back();
    slot->in_use = true;
    slot->task = task;
    slot->chunks = static_cast<std::int32_t>(task.chunk_count(chunk_bytes));
    slot->next.store(0, std::memory_order_relaxed);
    slot->moved.store(0, std::memory_order_relaxed);
    slot->done.store(0, std::memory_order_relaxed);
    slot->sleeping.store(false, std::memory_order_relaxed);
    slot->moved_by_thread = 0;
    slot->launch = launch;
    shared_.push_back(slot);
    claimable_.fetch_add(1, std::memory_order_release);
  }
  thread_->wake();
}

/// Moves chunks of `c` until none is left to claim; the mover of the last chunk signals.
PALLAS_DECL void dma_engine::claim_chunks(shared_copy& c, bool by_thread) {
  bool took_last = false;
  for (;;) {
    std::int32_t const k = c.next.fetch_add(1, std::memory_order_acq_rel);
    if (k >= c.chunks) break;
    if (k == c.chunks - 1) took_last = true;
    c.task.move_chunk(k, chunk_bytes);
    if (by_thread) ++c.moved_by_thread;
    if (c.moved.fetch_add(1, std::memory_order_acq_rel) + 1 == c.chunks) c.task.signal();
    // `done` counts a chunk only after its mover's signal (if any): a waiter that sees the
    // copy out of flight also sees its semaphore, never a short one with nothing in flight
    // (which the deadlock detector took for a deadlock when the DMA thread was preempted
    // between its last chunk and the signal).
    if (c.done.fetch_add(1, std::memory_order_seq_cst) + 1 == c.chunks && c.sleeping.load(std::memory_order_seq_cst))
      c.done.notify_all();
  }
  if (took_last) claimable_.fetch_sub(1, std::memory_order_acq_rel);
}

PALLAS_DECL bool dma_engine::serve(int core_index) {
  shared_copy* c = nullptr;
  {
    auto const lock = shared_mutex_.lock_from_thread();
    for (shared_copy* s : shared_)
      if (s->next.load(std::memory_order_acquire) < s->chunks) {
        c = s;
        c->users.fetch_add(1, std::memory_order_acq_rel);
        break;
      }
  }
  if (!c) return false;
  bool const tracing = trace::enabled();
  std::int64_t const begin = tracing ? detail::now_ns() : 0;
  std::int64_t const cpu = tracing ? detail::thread_cpu_ns() : 0;
  std::int64_t const before = c->moved_by_thread;
  claim_chunks(*c, true);
  if (tracing && c->moved_by_thread > before) {
    // The recorder's mutex is the cores' too: never hold it at SCHED_IDLE (lending_mutex.hpp).
    attached_thread_->lend_priority();
    trace::event e;
    e.name = "DMA thread: " + std::to_string(c->moved_by_thread - before) + " of " + std::to_string(c->chunks) +
             " chunks, " + std::to_string(c->task.bytes) + " bytes";
    e.launch = c->launch;
    e.core = core_index;
    e.dma = true;
    e.category = "dma_thread";
    e.lane = 2000;
    e.lane_name = "DMA thread";
    e.bytes = c->task.bytes;
    e.begin_ns = begin;
    e.cpu_ns = detail::cpu_since(cpu);
    e.end_ns = detail::now_ns();
    detail::recorder::instance().record(std::move(e));
  }
  c->users.fetch_sub(1, std::memory_order_acq_rel);
  return true;
}

/// Moves unclaimed chunks of the oldest published copy that signals `cell`.
PALLAS_DECL bool dma_engine::help(std::atomic<std::int32_t> const* cell) {
  if (!claimable()) return false;
  shared_copy* c = nullptr;
  {
    auto const lock = shared_mutex_.lock_from_core(attached_thread_);
    for (shared_copy* s : shared_)
      if (s->task.semaphore == cell && s->next.load(std::memory_order_acquire) < s->chunks) {
        c = s;
        c->users.fetch_add(1, std::memory_order_acq_rel);
        break;
      }
  }
  if (!c) return false;
  claim_chunks(*c, false);
  c->users.fetch_sub(1, std::memory_order_acq_rel);
  return true;
}

/// A published copy that signals `cell` and whose chunks are all claimed but not all moved.
PALLAS_DECL shared_copy* dma_engine::in_flight_for(std::atomic<std::int32_t> const* cell) {
  if (!thread_) return nullptr;
  auto const lock = shared_mutex_.lock_from_core(attached_thread_);
  for (shared_copy* s : shared_)
    if (s->task.semaphore == cell && s->done.load(std::memory_order_acquire) < s->chunks) return s;
  return nullptr;
}

PALLAS_DECL void dma_engine::quiesce() {
  // Finish every published copy here, then wait until the DMA thread lets go of them.
  for (;;) {
    shared_copy* c = nullptr;
    {
      auto const lock = shared_mutex_.lock_from_core(attached_thread_);
      for (shared_copy* s : shared_)
        if (s->next.load(std::memory_order_acquire) < s->chunks) {
          c = s;
          c->users.fetch_add(1, std::memory_order_acq_rel);
          break;
        }
    }
    if (!c) break;
    claim_chunks(*c, false);
    c->users.fetch_sub(1, std::memory_order_acq_rel);
  }
  // Never spin for long on the DMA thread: it runs only on CPUs nobody else wants.
  auto const lock = shared_mutex_.lock_from_core(attached_thread_);
  for (shared_copy* s : shared_)
    for (int k = 0; s->done.load(std::memory_order_acquire) < s->chunks || s->users.load(std::memory_order_acquire) != 0;
         ++k) {
      if (k < 256) {
        cpu_relax();
      } else {
        if (k == 256 && thread_) thread_->lend_priority();
        std::this_thread::sleep_for(std::chrono::microseconds(20));
      }
    }
  prune_locked();
}

}  // namespace pallas::detail
