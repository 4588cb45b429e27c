#pragma once
// One started copy, type-erased: what a DMA engine queue holds. The bytes move when the
// task runs; then its DMA semaphore is signaled with the copy's byte count. The engine
// that runs tasks is dma_engine.hpp.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include <pallas/detail/checked_access.hpp>
#include <pallas/detail/stream_copy.hpp>
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
    if (bytes == 0) return;
    if (src == dst) {  // a copy onto itself (identical views) changes nothing
      bool same = true;
      for (int r = 0; r < rank; ++r) same &= extents[r] <= 1 || src_strides[r] == dst_strides[r];
      if (same) return;
    }
    if (streaming) {
      walk_rows([](std::byte* o, std::byte const* s, std::size_t n) { stream_bytes(o, s, n); });
      stream_fence();
    } else {
      walk_rows([](std::byte* o, std::byte const* s, std::size_t n) { std::memcpy(o, s, n); });
    }
  }

  /// Asks the caches for the source now, so that moving the bytes later hits them.
  void prefetch_source() const {
    walk_rows([](std::byte*, std::byte const* s, std::size_t n) { prefetch_bytes(s, n); });
  }

 private:
  /// Calls f(dst, src, bytes) for every run of bytes contiguous on both sides.
  template <class F>
  void walk_rows(F&& f) const {
    if (rank == 0) {
      f(dst, src, element_bytes);
      return;
    }
    // Merge the trailing dimensions that are contiguous on both sides into one row.
    int inner = rank - 1;
    index_t row = extents[inner];
    bool contiguous_row = src_strides[inner] == 1 && dst_strides[inner] == 1;
    while (contiguous_row && inner > 0 && src_strides[inner - 1] == row &&
           dst_strides[inner - 1] == row) {
      --inner;
      row *= extents[inner];
    }
    index_t ix[max_rank]{};
    for (;;) {
      index_t so = 0, doff = 0;
      for (int d = 0; d < inner; ++d) {
        so += ix[d] * src_strides[d];
        doff += ix[d] * dst_strides[d];
      }
      std::byte const* s = src + so * static_cast<index_t>(element_bytes);
      std::byte* o = dst + doff * static_cast<index_t>(element_bytes);
      if (contiguous_row) {
        f(o, s, static_cast<std::size_t>(row) * element_bytes);
      } else {
        index_t const ss = src_strides[inner] * static_cast<index_t>(element_bytes);
        index_t const ds = dst_strides[inner] * static_cast<index_t>(element_bytes);
        for (index_t k = 0; k < row; ++k) f(o + k * ds, s + k * ss, element_bytes);
      }
      int d = inner - 1;
      for (; d >= 0; --d) {
        if (++ix[d] < extents[d]) break;
        ix[d] = 0;
      }
      if (d < 0) return;
    }
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
