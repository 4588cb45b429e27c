// SPDX-License-Identifier: Apache-2.0
#pragma once
// One started copy, type-erased: what a DMA engine queue holds. The bytes move when the
// task runs; then its DMA semaphore is signaled with the copy's byte count. The engine
// that runs tasks is dma_engine.hpp.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <utility>

#include <pallas/config.hpp>
#include <pallas/detail/checked/checked_access.hpp>
#include <pallas/error.hpp>
#include <pallas/ref.hpp>
#include <pallas/shape.hpp>

namespace pallas::detail {

struct dma_task {
  static constexpr int max_rank = 8;

  std::byte const* src = nullptr;
  std::byte* dst = nullptr;
  int rank = 0;
  std::size_t element_bytes = 0;
  index_t extents[max_rank]{};
  index_t src_strides[max_rank]{};  // in elements
  index_t dst_strides[max_rank]{};
  std::atomic<std::int32_t>* semaphore = nullptr;  // signaled with `bytes` when done
  std::int32_t bytes = 0;
  std::uint64_t id = 0;  // per core, in start order
  bool tracked = false;    // checked mode: registered in the core's copies in flight (id)
  bool streaming = false;  // write-back to HBM: non-temporal stores (stream_copy.hpp)

  /// A task copying src into dst (shapes already checked equal).
  template <AnyRef Src, AnyRef Dst>
  static dma_task make(Src const& src_ref, Dst const& dst_ref) {
    static_assert(Src::rank() <= max_rank, "pallas::copy: DMAs support refs of rank <= 8");
    using T = typename Src::value_type;
    dma_task t;
    t.src = reinterpret_cast<std::byte const*>(src_ref.data());
    t.dst = reinterpret_cast<std::byte*>(dst_ref.data());
    t.rank = static_cast<int>(Src::rank());
    t.element_bytes = sizeof(T);
    for (int r = 0; r < t.rank; ++r) {
      t.extents[r] = src_ref.extent(static_cast<std::size_t>(r));
      t.src_strides[r] = src_ref.stride(static_cast<std::size_t>(r));
      t.dst_strides[r] = dst_ref.stride(static_cast<std::size_t>(r));
    }
    index_t const total = src_ref.size() * static_cast<index_t>(sizeof(T));
    if (total > INT32_MAX) fail("pallas::copy: a single DMA moves at most 2^31-1 bytes, this one ", total);
    t.bytes = static_cast<std::int32_t>(total);
    return t;
  }

  /// The bytes the copy reads and writes.
  region src_region() const noexcept {
    return region::strided(src, rank, extents, src_strides, static_cast<std::int64_t>(element_bytes));
  }
  region dst_region() const noexcept {
    return region::strided(dst, rank, extents, dst_strides, static_cast<std::int64_t>(element_bytes));
  }

  /// Moves the bytes (without signaling).
  void move_bytes() const;

  /// How many chunks of about `target` bytes the copy splits into (1 at least): whole rows
  /// of the copy, or byte ranges of one contiguous run.
  std::int64_t chunk_count(std::int64_t target) const;

  /// Moves chunk k of chunk_count(target) (without signaling).
  void move_chunk(std::int64_t k, std::int64_t target) const;

 private:
  /// How many rows ahead a fetch asks the caches for the source (strided rows defeat the
  /// hardware prefetcher).
  static constexpr std::int64_t prefetch_rows_ahead = 6;

  bool is_self_copy() const noexcept;

  /// The copy as rows: the trailing dimensions contiguous on both sides merged into one row
  /// of `bytes` bytes (contiguous), else rows of single elements `element_bytes` apart.
  struct rows {
    int inner = 0;            ///< dimensions [0, inner) index the rows
    index_t length = 1;       ///< elements per row
    std::int64_t bytes = 0;   ///< bytes per row
    std::int64_t count = 1;   ///< rows
    bool contiguous = true;   ///< a row is one run of bytes on both sides
  };

  rows row_layout() const noexcept;

  void move_run(std::byte* o, std::byte const* s, std::size_t n) const;

  /// The source and destination of row `k`.
  std::pair<std::byte const*, std::byte*> row_at(rows const& r, std::int64_t k) const noexcept;

  /// Moves rows [first, last).
  void move_rows(rows const& r, std::int64_t first, std::int64_t last) const;

 public:
  /// Adds the copy's byte count to its semaphore (the copy is complete).
  void signal() const {
    if (semaphore) semaphore->fetch_add(bytes, std::memory_order_acq_rel);
  }

  /// Moves the bytes and signals the semaphore.
  void run() const {
    move_bytes();
    signal();
  }
};

}  // namespace pallas::detail

#if PALLAS_DEFINE_RUNTIME
#  include <pallas/detail/runtime/dma_task.ipp>
#endif
