// SPDX-License-Identifier: Apache-2.0
#pragma once
// The process's pool of large aligned buffers: Arrays (array.hpp), block values
// (expr/assign.hpp) and pl::dot's Eigen GEMM workspace (detail/gemm.ipp) of 128 KiB and
// more take their memory from it and give it back.

#include <cstddef>
#include <mutex>
#include <unordered_map>
#include <vector>

#include <pallas/config.hpp>

namespace pallas::detail {

inline constexpr std::size_t array_alignment = 64;

/// Recycles large buffers, so that calling a kernel again does not fault in fresh pages for
/// its outputs (a 64 MiB output costs ~16k page faults otherwise; glibc maps every aligned
/// block from 128 KiB up afresh, so a 512 KiB shard faulted 128 pages a launch), nor a
/// kernel body for its block values at every grid step (a (128, 1024) f32 `pl::eval` did).
/// Off in checked mode, so that AddressSanitizer sees every use after free.
class buffer_pool {
 public:
  static constexpr std::size_t min_bytes = std::size_t{128} << 10;  // glibc's mmap threshold
  static constexpr std::size_t max_cached_bytes = std::size_t{1} << 30;

  /// The process's pool (never destroyed: Arrays may outlive statics).
  static buffer_pool& instance();
  static std::mutex& mutex_of();

  /// `bytes` of memory aligned to array_alignment: a buffer of that size given back
  /// earlier, or fresh.
  void* take(std::size_t bytes);
  /// Gives back what take(bytes) returned: kept for reuse, or freed.
  void give(void* p, std::size_t bytes) noexcept;

 private:
  std::mutex mutex_;
  std::unordered_map<std::size_t, std::vector<void*>> free_;  ///< by size
  std::size_t cached_ = 0;
};

}  // namespace pallas::detail

#if PALLAS_DEFINE_RUNTIME
#  include <pallas/detail/buffer_pool.ipp>
#endif
