// SPDX-License-Identifier: Apache-2.0
#pragma once
// A TensorCore's DMA engine: every copy the core starts goes through it (pipeline fetches
// and write-backs, make_async_copy, sync_copy), with one id scheme, the launch's DMA order
// applied to all of them, and checked mode's hooks in one place. Two executors move the
// bytes:
//
//   inline  the copy waits in the core's queue and moves at the first wait that needs it,
//           on the core (the block lands in the core's cache);
//   thread  a started HBM->VMEM copy is published, split into chunks of chunk_bytes, which
//           the device's DMA thread (dma_thread.hpp) and the waiting core both claim: a
//           wait first moves the chunks nobody has claimed, then waits only for chunks in
//           flight. Write-backs stay inline (non-temporal stores on the core measured
//           faster), and so do copies checked mode tracks and every copy of the eager and
//           random orders (which the seed must reproduce).
//
// This header holds the engine's state; dma_engine_ops.hpp its operations (they need the
// core and the launch, which hold the engine), dma_shared_copies.hpp the thread executor's.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <vector>

#include <pallas/detail/runtime/dma_order.hpp>
#include <pallas/detail/runtime/dma_task.hpp>
#include <pallas/detail/runtime/lending_mutex.hpp>

namespace pallas::detail {

struct core_state;
class dma_thread;

/// A copy published to the DMA thread: its chunks are claimed by whoever gets there first.
struct shared_copy {
  dma_task task;
  std::int32_t chunks = 1;
  std::atomic<std::int32_t> next{0};   ///< the next chunk nobody has claimed
  std::atomic<std::int32_t> moved{0};  ///< chunks moved; the last mover signals the semaphore
  std::atomic<std::int32_t> done{0};   ///< chunks moved and, for the last, signaled
  std::atomic<int> users{0};           ///< threads claiming its chunks now
  std::atomic<bool> sleeping{false};   ///< the issuing core sleeps on `done`
  std::int64_t moved_by_thread = 0;    ///< chunks the DMA thread moved (its thread only; tracing)
  std::uint64_t launch = 0;            ///< the launch that started it (tracing)
  std::int64_t thread_begin_ns = 0, thread_end_ns = 0;
  bool in_use = false;                 ///< guarded by the engine's mutex
};

class dma_engine {
 public:
  /// Chunks of a copy the DMA thread and the core share (8-32 KiB measured best here).
  static constexpr std::int64_t chunk_bytes = 16 * 1024;

  dma_engine() = default;
  dma_engine(dma_engine const&) = delete;
  dma_engine& operator=(dma_engine const&) = delete;

  // The operations (dma_engine_ops.hpp). `core` is the core that owns this engine.
  void reset(dma_order_policy order, std::uint64_t core_seed, dma_thread* thread, std::int64_t thread_min_bytes);
  void start(core_state& core, dma_task const& task, place where);
  void wait(core_state& core, std::atomic<std::int32_t>& cell, std::int32_t value, char const* who, place where);
  void finish(core_state& core);
  /// A copy that completes before the caller goes on (sync_copy): moved now, on the core.
  /// `serialize`, if given, is held while the bytes move, and only then: a core waiting
  /// for its turn in the random order must hold no lock another core needs.
  void copy_now(core_state& core, dma_task task, place where, std::mutex* serialize = nullptr);
  /// Lets no copy of this engine run on the DMA thread any more (before its memory goes).
  void quiesce();
  /// The DMA thread's part: claims and moves the chunks of the oldest published copy with
  /// chunks nobody has claimed; false when there is none.
  bool serve(int core_index);
  bool claimable() const noexcept { return claimable_.load(std::memory_order_acquire) > 0; }

  dma_order_policy const& order() const noexcept { return order_; }
  /// The next of the core's seeded random numbers (splitmix64).
  std::uint64_t next_random() noexcept {
    std::uint64_t z = (random_state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  std::uint64_t copies_started() const noexcept { return copy_count_; }
  bool uses_thread() const noexcept { return thread_ != nullptr; }

 private:
  bool run_queued_for(core_state& core, std::atomic<std::int32_t> const* cell, place where);
  void maybe_complete_early(core_state& core, place where);
  void run_now(core_state& core, dma_task const& task, place where);
  void run_queued_at(core_state& core, std::size_t k, place where);
  bool help(std::atomic<std::int32_t> const* cell);
  shared_copy* in_flight_for(std::atomic<std::int32_t> const* cell);
  void claim_chunks(shared_copy& c, bool by_thread);
  void publish(dma_task const& task, std::uint64_t launch);
  void prune_locked();

  // Inline executor: started copies that have not moved, in start order (core only).
  std::vector<dma_task> queue_;

  // Thread executor: published copies, in start order; the pool keeps their addresses.
  lending_mutex shared_mutex_;
  std::deque<shared_copy> pool_;
  std::vector<shared_copy*> shared_;
  std::atomic<int> claimable_{0};  ///< published copies with unclaimed chunks

  dma_order_policy order_{};
  dma_thread* thread_ = nullptr;     ///< the device's DMA thread, when this launch uses it
  dma_thread* attached_thread_ = nullptr;  ///< the DMA thread that serves this engine (in any launch)
  std::int64_t thread_min_bytes_ = 0;  ///< smaller copies stay inline
  std::uint64_t copy_count_ = 0;     ///< copies started in this launch (ids when unchecked)
  std::uint64_t random_state_ = 0;   ///< the core's seeded choices (random order)
};

}  // namespace pallas::detail
