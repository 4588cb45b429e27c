// SPDX-License-Identifier: Apache-2.0
#pragma once
// dma_task's byte movers (per copy, per chunk, per row), compiled once per program under
// separate compilation (config.hpp) and inline in every translation unit otherwise.

#include <pallas/detail/runtime/dma_task.hpp>

#include <algorithm>
#include <cstring>

#include <pallas/detail/runtime/stream_copy.hpp>

namespace pallas::detail {

PALLAS_DECL void dma_task::move_bytes() const {
  if (bytes == 0 || is_self_copy()) return;
  rows const r = row_layout();
  move_rows(r, 0, r.count);
}

PALLAS_DECL std::int64_t dma_task::chunk_count(std::int64_t target) const {
  if (bytes == 0 || is_self_copy()) return 1;
  rows const r = row_layout();
  if (r.count == 1 && r.contiguous) return std::max<std::int64_t>(1, (r.bytes + target - 1) / target);
  std::int64_t const per = std::max<std::int64_t>(1, target / std::max<std::int64_t>(1, r.bytes));
  return (r.count + per - 1) / per;
}

PALLAS_DECL void dma_task::move_chunk(std::int64_t k, std::int64_t target) const {
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

PALLAS_DECL bool dma_task::is_self_copy() const noexcept {
  if (src != dst) return false;
  for (int r = 0; r < rank; ++r)
    if (extents[r] > 1 && src_strides[r] != dst_strides[r]) return false;
  return true;  // a copy onto itself (identical views) changes nothing
}

PALLAS_DECL dma_task::rows dma_task::row_layout() const noexcept {
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

PALLAS_DECL void dma_task::move_run(std::byte* o, std::byte const* s, std::size_t n) const {
  if (streaming)
    stream_bytes(o, s, n);
  else
    std::memcpy(o, s, n);
}

PALLAS_DECL std::pair<std::byte const*, std::byte*> dma_task::row_at(rows const& r, std::int64_t k) const noexcept {
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

PALLAS_DECL void dma_task::move_rows(rows const& r, std::int64_t first, std::int64_t last) const {
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

}  // namespace pallas::detail
