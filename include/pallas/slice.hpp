// SPDX-License-Identifier: Apache-2.0
#pragma once
// Indexers for Ref::at: integers (drop a dimension), pl::ds (a slice), pl::full_extent
// (Python's `:`) and pl::ellipsis (Python's `...`).

#include <type_traits>

#include <pallas/shape.hpp>

namespace pallas {

/// Python's `...`: every remaining dimension, whole.
struct ellipsis_t {
  explicit constexpr ellipsis_t() = default;
};
/// `...` in Python: `x_ref[pl::ellipsis]` is the whole ref as a block.
inline constexpr ellipsis_t ellipsis{};

/// Python's `:` in one dimension.
struct full_extent_t {
  explicit constexpr full_extent_t() = default;
};
/// `:` in Python: `x_ref.at(pl::full_extent, pl::ds<8>(i))` keeps a whole dimension.
inline constexpr full_extent_t full_extent{};

/// A slice [start, start + Size) with a static size; the start is a run-time integer or a
/// `pl::c<N>`. `pl.ds(i * 128, 128)` is `pl::ds<128>(i * 128)`.
template <index_t Size, class Start = index_t>
struct static_slice {
  static_assert(Size >= 0, "pallas::ds: the size of a slice must be >= 0");
  static constexpr index_t size = Size;  ///< the number of elements (static)
  [[no_unique_address]] Start start;  ///< the first element
};

/// A slice whose size is known only at run time: `pl::ds(start, size)`.
struct dynamic_slice {
  index_t start;  ///< the first element
  index_t size;  ///< the number of elements
};

/// `pl.ds(start, Size)` with a static size.
template <index_t Size, Integer Start>
constexpr auto ds(Start start) {
  if constexpr (StaticInt<Start>)
    return static_slice<Size, std::remove_cvref_t<Start>>{start};
  else
    return static_slice<Size, index_t>{static_cast<index_t>(start)};
}

/// `pl.ds(start, size)` with a run-time size (only for refs with run-time extents).
template <DynamicInt Start, DynamicInt Size>
constexpr dynamic_slice ds(Start start, Size size) {
  return {static_cast<index_t>(start), static_cast<index_t>(size)};
}

namespace detail {
template <class T>
struct is_static_slice : std::false_type {};
template <index_t S, class St>
struct is_static_slice<static_slice<S, St>> : std::true_type {};
}  // namespace detail

/// One indexer of Ref::at.
template <class T>
concept Indexer = Integer<T> || detail::is_static_slice<std::remove_cvref_t<T>>::value ||
                  std::same_as<std::remove_cvref_t<T>, dynamic_slice> ||
                  std::same_as<std::remove_cvref_t<T>, full_extent_t> ||
                  std::same_as<std::remove_cvref_t<T>, ellipsis_t>;

}  // namespace pallas
