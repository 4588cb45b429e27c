// SPDX-License-Identifier: Apache-2.0
#pragma once
// The streaming byte mover, compiled once per program under separate compilation
// (config.hpp) and inline in every translation unit otherwise.

#include <pallas/detail/runtime/stream_copy.hpp>

#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#  include <emmintrin.h>
#endif
#if defined(__AVX__) || defined(__AVX512F__)
#  include <immintrin.h>
#endif

namespace pallas::detail {

PALLAS_DECL void stream_bytes(std::byte* dst, std::byte const* src, std::size_t bytes) noexcept {
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

}  // namespace pallas::detail
