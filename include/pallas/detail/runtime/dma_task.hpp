// SPDX-License-Identifier: Apache-2.0
#pragma once
// One started copy, type-erased: what a DMA engine queue holds. The bytes move when the
// task runs; then its DMA semaphore is signaled with the copy's byte count. The engine
// that runs tasks is dma_engine.hpp.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>
#include <algorithm>

#include <pallas/detail/checked/checked_access.hpp>
#include <pallas/detail/runtime/stream_copy.hpp>
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
  void move_bytes() const {
    if (bytes == 0 || is_self_copy()) return;
    rows const r = row_layout();
    move_rows(r, 0, r.count);
  }

  /// How many chunks of about `target` bytes the copy splits into (1 at least): whole rows
  /// of the copy, or byte ranges of one contiguous run.
  std::int64_t chunk_count(std::int64_t target) const {
    if (bytes == 0 || is_self_copy()) return 1;
    rows const r = row_layout();
    if (r.count == 1 && r.contiguous) return std::max<std::int64_t>(1, (r.bytes + target - 1) / target);
    std::int64_t const per = std::max<std::int64_t>(1, target / std::max<std::int64_t>(1, r.bytes));
    return (r.count + per - 1) / per;
  }

  /// Moves chunk k of chunk_count(target) (without signaling).
  void move_chunk(std::int64_t k, std::int64_t target) const {
    if (bytes == 0 || is_self_copy()) return;
    rows const r = row_layout();
    if (r.count == 1 && r.contiguous) {
      std::int64_t const begin = k * target, end = std::min(r.bytes, begin + target);
      if (begin >= end) return;
      move_run(dst + begin, src + begin, static_cast<std::size_t>(end - begin));
      if (streaming) stream_fence();
      return;
    }
    std::int64_t const per = std::max<std::int64_t>(1, target / std::max<std::int64_t>(1, r.bytes));
    move_rows(r, k * per, std::min(r.count, (k + 1) * per));
  }

 private:
  /// How many rows ahead a fetch asks the caches for the source (strided rows defeat the
  /// hardware prefetcher).
  static constexpr std::int64_t prefetch_rows_ahead = 6;

  bool is_self_copy() const noexcept {
    if (src != dst) return false;
    for (int r = 0; r < rank; ++r)
      if (extents[r] > 1 && src_strides[r] != dst_strides[r]) return false;
    return true;  // a copy onto itself (identical views) changes nothing
  }

  /// The copy as rows: the trailing dimensions contiguous on both sides merged into one row
  /// of `bytes` bytes (contiguous), else rows of single elements `element_bytes` apart.
  struct rows {
    int inner = 0;            ///< dimensions [0, inner) index the rows
    index_t length = 1;       ///< elements per row
    std::int64_t bytes = 0;   ///< bytes per row
    std::int64_t count = 1;   ///< rows
    bool contiguous = true;   ///< a row is one run of bytes on both sides
  };

  rows row_layout() const noexcept {
    rows r;
    if (rank == 0) {
      r.bytes = static_cast<std::int64_t>(element_bytes);
      return r;
    }
    r.inner = rank - 1;
    r.length = extents[r.inner];
    r.contiguous = src_strides[r.inner] == 1 && dst_strides[r.inner] == 1;
    while (r.contiguous && r.inner > 0 && src_strides[r.inner - 1] == r.length && dst_strides[r.inner - 1] == r.length) {
      --r.inner;
      r.length *= extents[r.inner];
    }
    r.bytes = r.length * static_cast<std::int64_t>(element_bytes);
    for (int d = 0; d < r.inner; ++d) r.count *= extents[d];
    return r;
  }

  void move_run(std::byte* o, std::byte const* s, std::size_t n) const {
    if (streaming)
      stream_bytes(o, s, n);
    else
      std::memcpy(o, s, n);
  }

  /// The source and destination of row `k`.
  std::pair<std::byte const*, std::byte*> row_at(rows const& r, std::int64_t k) const noexcept {
    index_t so = 0, doff = 0;
    for (int d = r.inner - 1; d >= 0; --d) {
      index_t const i = k % extents[d];
      k /= extents[d];
      so += i * src_strides[d];
      doff += i * dst_strides[d];
    }
    auto const eb = static_cast<index_t>(element_bytes);
    return {src + so * eb, dst + doff * eb};
  }

  /// Moves rows [first, last).
  void move_rows(rows const& r, std::int64_t first, std::int64_t last) const {
    if (rank == 0) {
      std::memcpy(dst, src, element_bytes);
      return;
    }
    bool const prefetch = !streaming && r.count > 1;
    for (std::int64_t k = first; k < last; ++k) {
      auto const [s, o] = row_at(r, k);
      if (prefetch && k + prefetch_rows_ahead < last) {
        auto const ahead = row_at(r, k + prefetch_rows_ahead).first;
        prefetch_bytes(ahead, static_cast<std::size_t>(r.contiguous ? r.bytes : static_cast<std::int64_t>(element_bytes)));
      }
      if (r.contiguous) {
        move_run(o, s, static_cast<std::size_t>(r.bytes));
      } else {
        index_t const ss = src_strides[r.inner] * static_cast<index_t>(element_bytes);
        index_t const ds = dst_strides[r.inner] * static_cast<index_t>(element_bytes);
        for (index_t j = 0; j < r.length; ++j) std::memcpy(o + j * ds, s + j * ss, element_bytes);
      }
    }
    if (streaming) stream_fence();
  }

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
