// SPDX-License-Identifier: Apache-2.0
#pragma once
// The buffer pool's operations, compiled once per program under separate compilation
// (config.hpp) and inline in every translation unit otherwise.

#include <pallas/detail/buffer_pool.hpp>

#include <new>

#include <pallas/detail/runtime/fork_guard.hpp>

namespace pallas::detail {

PALLAS_DECL buffer_pool& buffer_pool::instance() {
  static buffer_pool* const pool = [] {
    auto* p = new buffer_pool;  // never destroyed: Arrays may outlive statics
    hold_across_fork<&buffer_pool::mutex_of>();
    return p;
  }();
  return *pool;
}

PALLAS_DECL std::mutex& buffer_pool::mutex_of() { return instance().mutex_; }

PALLAS_DECL void* buffer_pool::take(std::size_t bytes) {
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

PALLAS_DECL void buffer_pool::give(void* p, std::size_t bytes) noexcept {
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

}  // namespace pallas::detail
