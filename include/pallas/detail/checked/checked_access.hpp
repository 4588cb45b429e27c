// SPDX-License-Identifier: Apache-2.0
#pragma once
// The access hook of checked mode, light enough for ref.hpp and block_view.hpp to include:
//
//   detail::check_access(ptr, bytes, is_write, "block read of x");   // contiguous bytes
//   detail::check_ref_access(ref, is_write, "block write of o");     // a (strided) ref
//   detail::check_element_access(ptr, bytes, where);                 // ref(i, j), s[i]
//
// They compare the access with the calling core's copies in flight (started and not yet
// waited) and throw pallas::race_error when it reads or writes a copy's destination, or
// writes a copy's source, naming the copy, where it started, and the access. While the
// race detector runs (race_detector.hpp), they also record accesses of memory shared by
// the cores (outside the core's VMEM and SMEM). With PALLAS_CHECKED=0 they compile to
// nothing; outside kernels, or while no copy is in flight and one core runs, they cost one
// thread-local load, one relaxed atomic load and a flag.
//
// An element access (`ref(i, j)` returns a reference: a read or a write) is checked as an
// access of the destination: every access to a destination in flight is a race. A write of
// a source through it is caught later, when the copy retires (the source's snapshot).
//
// Also here: `place` (a caller's file and line, captured by default arguments) and
// `region` (the bytes a strided view covers, with an exact intersection test).

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <pallas/config.hpp>

namespace pallas::detail {

/// A place in the user's source. `place where = place::here()` as a default argument
/// captures the caller's file and line (g++ and clang++ evaluate the builtins at the call).
struct place {
  char const* file = nullptr;
  int line = 0;

  static constexpr place here(char const* file = __builtin_FILE(), int line = __builtin_LINE()) noexcept {
    return {file, line};
  }
  constexpr bool known() const noexcept { return file != nullptr; }
  /// The file's name without its directories.
  char const* file_name() const noexcept;
};

/// The bytes a strided view covers: `runs` contiguous runs of `run` bytes each, one per
/// index of the outer dimensions (extents/strides in bytes), plus the bounding interval.
struct region {
  static constexpr int max_rank = 8;

  std::byte const* base = nullptr;
  std::int64_t run = 0;               ///< bytes of one contiguous run
  int rank = 0;                       ///< outer dimensions (over runs)
  std::int64_t extents[max_rank]{};   ///< outer extents
  std::int64_t strides[max_rank]{};   ///< outer strides, in bytes
  std::byte const* lo = nullptr;      ///< bounding interval [lo, hi)
  std::byte const* hi = nullptr;
  bool ordered = true;                ///< runs ascend and do not overlap (searchable)

  bool empty() const noexcept { return lo == hi; }
  std::int64_t bytes_spanned() const noexcept { return hi - lo; }

  std::int64_t runs() const noexcept {
    std::int64_t n = 1;
    for (int d = 0; d < rank; ++d) n *= extents[d];
    return n;
  }

  /// `count` bytes from `p`.
  static region contiguous(void const* p, std::int64_t count) noexcept {
    region r;
    r.base = static_cast<std::byte const*>(p);
    r.run = count;
    r.lo = r.base;
    r.hi = r.base + (count > 0 ? count : 0);
    return r;
  }

  /// A view of `rank_in` dimensions (extents and strides in elements).
  static region strided(void const* p, int rank_in, std::int64_t const* ext, std::int64_t const* str,
                        std::int64_t element_bytes) noexcept;

  /// Where run `k` (row-major over the outer dimensions) starts.
  std::byte const* run_start(std::int64_t k) const noexcept;

  /// Whether some byte of [a, b) belongs to the region.
  bool intersects(std::byte const* a, std::byte const* b) const noexcept;

  /// Whether the two regions share a byte.
  bool intersects(region const& other) const noexcept;
};

/// The region of a pl::Ref (any type with data(), rank(), extent(r), stride(r)).
template <class R>
region region_of(R const& ref) noexcept {
  constexpr int rank = static_cast<int>(R::rank());
  std::int64_t ext[rank > 0 ? rank : 1]{}, str[rank > 0 ? rank : 1]{};
  for (int d = 0; d < rank; ++d) {
    ext[d] = static_cast<std::int64_t>(ref.extent(static_cast<std::size_t>(d)));
    str[d] = static_cast<std::int64_t>(ref.stride(static_cast<std::size_t>(d)));
  }
  using T = std::remove_cv_t<std::remove_pointer_t<decltype(ref.data())>>;
  return region::strided(ref.data(), rank, ext, str, static_cast<std::int64_t>(sizeof(T)));
}

/// What an access does: reads, writes, or (an element reference) either.
enum class access_kind { read, write, read_or_write };

/// What a core's checked state offers the hook (see checked_state.hpp).
class access_checker {
 public:
  /// Copies in flight on this core; written only by the core itself.
  std::atomic<int> in_flight{0};
  /// Remote copies from other chips into this core, not yet waited for (under the state's
  /// mutex: their senders register them).
  std::atomic<int> incoming{0};
  /// Over MPI, the word other ranks set when they describe a copy into this core that it
  /// has not read yet (mpi_incoming.hpp); nullptr in one process.
  std::uint64_t* remote_hint = nullptr;
  bool watching() const noexcept {
    return (in_flight.load(std::memory_order_relaxed) | incoming.load(std::memory_order_relaxed)) != 0 ||
           (remote_hint && std::atomic_ref<std::uint64_t>(*remote_hint).load(std::memory_order_relaxed) != 0);
  }

  /// Throws pallas::race_error when the access conflicts with a copy in flight.
  virtual void check(region const& r, access_kind kind, char const* what, place where) = 0;

  /// The race detector is on (more than one core): accesses outside the core's own memory
  /// (its VMEM and SMEM, [local_lo, local_hi) each) go to note_shared.
  bool track_shared = false;
  std::byte const* local_lo[2]{};
  std::byte const* local_hi[2]{};

  bool is_shared(void const* p) const noexcept {
    auto const* b = static_cast<std::byte const*>(p);
    return !(b >= local_lo[0] && b < local_hi[0]) && !(b >= local_lo[1] && b < local_hi[1]);
  }

  /// Records an access of shared memory with the race detector (race_detector.hpp).
  virtual void note_shared(region const& r, access_kind kind, char const* what, place where) = 0;

 protected:
  access_checker() = default;
  ~access_checker() = default;
};

/// The calling core's checker while it runs a kernel in checked mode, else nullptr.
inline thread_local access_checker* current_access_checker = nullptr;

/// Checks an access of `bytes` contiguous bytes at `p` by the calling core.
inline void check_access(void const* p, std::size_t bytes, bool is_write, char const* what,
                         place where = place::here()) {
  if constexpr (checked_mode) {
    access_checker* c = current_access_checker;
    if (!c) return;
    auto const kind = is_write ? access_kind::write : access_kind::read;
    if (c->watching())
      c->check(region::contiguous(p, static_cast<std::int64_t>(bytes)), kind, what, where);
    if (c->track_shared && c->is_shared(p)) [[unlikely]]
      c->note_shared(region::contiguous(p, static_cast<std::int64_t>(bytes)), kind, what, where);
  } else {
    (void)p, (void)bytes, (void)is_write, (void)what, (void)where;
  }
}

/// Checks an element access (`ref(i, j)`, `s[i]`) of `bytes` bytes at `p` at `where`.
inline void check_element_access(void const* p, std::size_t bytes, place where) {
  if constexpr (checked_mode) {
    access_checker* c = current_access_checker;
    if (!c) return;
    if (c->watching()) [[unlikely]]
      c->check(region::contiguous(p, static_cast<std::int64_t>(bytes)), access_kind::read_or_write,
               "an element access (ref(i, ...))", where);
    if (c->track_shared && c->is_shared(p)) [[unlikely]]
      c->note_shared(region::contiguous(p, static_cast<std::int64_t>(bytes)), access_kind::read_or_write,
                     "an element access (ref(i, ...))", where);
  } else {
    (void)p, (void)bytes, (void)where;
  }
}

/// Checks an access of every element of `ref` (strided views are checked exactly).
template <class R>
void check_ref_access(R const& ref, bool is_write, char const* what, place where = place::here()) {
  if constexpr (checked_mode) {
    access_checker* c = current_access_checker;
    if (!c) return;
    auto const kind = is_write ? access_kind::write : access_kind::read;
    if (c->watching()) c->check(region_of(ref), kind, what, where);
    if (c->track_shared && c->is_shared(ref.data())) [[unlikely]]
      c->note_shared(region_of(ref), kind, what, where);
  } else {
    (void)ref, (void)is_write, (void)what, (void)where;
  }
}

}  // namespace pallas::detail

#if PALLAS_DEFINE_RUNTIME
#  include <pallas/detail/checked/checked_access.ipp>
#endif
