// SPDX-License-Identifier: Apache-2.0
#pragma once
// The process's pool of large aligned buffers: Arrays (array.hpp), block values
// (expr/assign.hpp) and pl::dot's Eigen GEMM workspace (detail/gemm.ipp) of 128 KiB and
// more take their memory from it and give it back.

#include <cstddef>
#include <mutex>
#include <new>
#include <unordered_map>
#include <vector>

#include <pallas/config.hpp>
#include <pallas/detail/runtime/fork_guard.hpp>

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

  static buffer_pool& instance() {
    static buffer_pool* const pool = [] {
      auto* p = new buffer_pool;  // never destroyed: Arrays may outlive statics
      hold_across_fork<&buffer_pool::mutex_of>();
      return p;
    }();
    return *pool;
  }
  static std::mutex& mutex_of() { return instance().mutex_; }

  void* take(std::size_t bytes) {
    if (!checked_mode && bytes >= min_bytes) {
      std::lock_guard lock(mutex_);
      if (auto it = free_.find(bytes); it != free_.end() && !it->second.empty()) {
        void* p = it->second.back();  // the latest given back: the likeliest still in cache
        it->second.pop_back();
        cached_ -= bytes;
        return p;
      }
    }
    return ::operator new(bytes, std::align_val_t{array_alignment});
  }

  void give(void* p, std::size_t bytes) noexcept {
    if (!checked_mode && bytes >= min_bytes) {
      std::lock_guard lock(mutex_);
      if (cached_ + bytes <= max_cached_bytes) {
        try {
          free_[bytes].push_back(p);
          cached_ += bytes;
          return;
        } catch (...) {  // no memory for the list: free the block instead
        }
      }
    }
    ::operator delete(p, std::align_val_t{array_alignment});
  }

 private:
  std::mutex mutex_;
  std::unordered_map<std::size_t, std::vector<void*>> free_;  ///< by size
  std::size_t cached_ = 0;
};

}  // namespace pallas::detail
