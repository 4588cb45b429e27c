// SPDX-License-Identifier: Apache-2.0
#pragma once
// Byte movers for DMAs between HBM (DRAM) and VMEM (cache-resident): software prefetch of a
// block that will be copied soon (strided rows defeat the hardware prefetcher), and
// non-temporal stores for write-back to HBM (no read-for-ownership: measured +35% store
// bandwidth here).

#include <cstddef>

#include <pallas/config.hpp>

#if defined(__SSE2__)
#  include <emmintrin.h>  // _mm_sfence
#endif

namespace pallas::detail {

inline constexpr std::size_t cache_line = 64;

/// Asks the caches for [p, p + bytes) without waiting.
inline void prefetch_bytes(std::byte const* p, std::size_t bytes) noexcept {
  for (std::size_t k = 0; k < bytes; k += cache_line) __builtin_prefetch(p + k, 0, 3);
}

/// memcpy that bypasses the caches for the destination where it can.
PALLAS_DECL void stream_bytes(std::byte* dst, std::byte const* src, std::size_t bytes) noexcept;

/// Orders earlier streaming stores before what follows (a semaphore signal).
inline void stream_fence() noexcept {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

}  // namespace pallas::detail

#if PALLAS_DEFINE_RUNTIME
#  include <pallas/detail/runtime/stream_copy.ipp>
#endif
