// SPDX-License-Identifier: Apache-2.0
#pragma once
// A per-core bump allocator with stack-like release: a core's VMEM or SMEM. Capacity is
// reserved once per core (pages are committed only when touched) and each launch enforces
// its chip's limit.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <string_view>

#include <pallas/config.hpp>

namespace pallas::detail {

class arena {
 public:
  static constexpr std::size_t alignment = 64;

  arena(std::string_view name, std::int64_t reserve_bytes)
      : name_(name), reserved_(reserve_bytes),
        base_(static_cast<std::byte*>(::operator new(static_cast<std::size_t>(reserve_bytes),
                                                     std::align_val_t{alignment}))) {}
  ~arena() { ::operator delete(base_, std::align_val_t{alignment}); }
  arena(arena const&) = delete;
  arena& operator=(arena const&) = delete;

  /// Sets the capacity in force (the chip's) and frees everything.
  void reset(std::int64_t capacity) noexcept {
    capacity_ = capacity < reserved_ ? capacity : reserved_;
    used_ = 0;
    peak_ = 0;
  }

  /// `bytes` bytes, 64-byte aligned; throws pallas::error when the capacity is exceeded.
  std::byte* allocate(std::int64_t bytes, std::string_view what);

  /// The allocation mark, for stack-like release.
  std::int64_t mark() const noexcept { return used_; }
  void release(std::int64_t mark) noexcept { used_ = mark; }

  std::int64_t used() const noexcept { return used_; }
  std::byte* base() const noexcept { return base_; }
  std::int64_t peak() const noexcept { return peak_; }
  std::int64_t capacity() const noexcept { return capacity_; }

 private:
  std::string_view name_;
  std::int64_t reserved_;
  std::int64_t capacity_ = 0;
  std::int64_t used_ = 0;
  std::int64_t peak_ = 0;
  std::byte* base_;
};

}  // namespace pallas::detail

#if PALLAS_DEFINE_RUNTIME
#  include <pallas/detail/runtime/arena.ipp>
#endif
