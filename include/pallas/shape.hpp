// SPDX-License-Identifier: Apache-2.0
#pragma once
// Shapes with static and run-time extents (the std::mdspan model: only the run-time
// extents are stored), static integers, and row-major strides.

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <type_traits>
#include <utility>

#include <pallas/error.hpp>

namespace pallas {

/// The integer type of every extent, index and offset.
using index_t = std::int64_t;

/// Marks an extent known only at run time: `pl::Array<float, pl::dyn, 128>`.
inline constexpr index_t dyn = -1;

/// A compile-time integer (CuTe's `Int<N>`): `pl::c<128>`. It mixes with run-time
/// integers wherever an index is taken, and keeps static checks static.
template <index_t V>
using c_t = std::integral_constant<index_t, V>;

/// A compile-time integer value: `pl::c<8>`.
template <index_t V>
inline constexpr c_t<V> c{};

namespace detail {
template <class T>
struct is_static_int : std::false_type {};
template <index_t V>
struct is_static_int<std::integral_constant<index_t, V>> : std::true_type {};
}  // namespace detail

/// A `pl::c<N>`.
template <class T>
concept StaticInt = detail::is_static_int<std::remove_cvref_t<T>>::value;

/// A run-time integer (not bool, not a `pl::c<N>`).
template <class T>
concept DynamicInt = std::integral<std::remove_cvref_t<T>> &&
                     !std::same_as<std::remove_cvref_t<T>, bool>;

/// Anything usable as one index.
template <class T>
concept Integer = StaticInt<T> || DynamicInt<T>;

/// A list of extents, each static or `pl::dyn`; only the `pl::dyn` ones are stored.
/// `pl::shape` and the strides of a Ref are both spelled with it.
template <index_t... Es>
class extents {
  static_assert(((Es >= 0 || Es == dyn) && ...),
                "pallas::shape: every extent must be >= 0 or pallas::dyn");
  static constexpr std::size_t num_dynamic = ((Es == dyn) + ... + std::size_t{0});

 public:
  /// The number of dimensions.
  static constexpr std::size_t rank() noexcept { return sizeof...(Es); }
  /// The number of pl::dyn dimensions.
  static constexpr std::size_t rank_dynamic() noexcept { return num_dynamic; }
  static constexpr bool is_static = num_dynamic == 0;  ///< no pl::dyn extent
  static constexpr std::array<index_t, sizeof...(Es)> static_extents{Es...};  ///< the extents as written (pl::dyn where dynamic)

  /// The static extent of dimension r, or pallas::dyn.
  static constexpr index_t static_extent(std::size_t r) noexcept { return static_extents[r]; }

  /// The element count, when every extent is static.
  static constexpr index_t static_size() noexcept
    requires is_static
  {
    return (index_t{1} * ... * Es);
  }

  constexpr extents() noexcept
    requires is_static
  = default;

  /// The run-time extents, in order: `pl::shape<pl::dyn, 128, pl::dyn>(4, 8)`.
  template <DynamicInt... I>
    requires(sizeof...(I) == rank_dynamic() && rank_dynamic() > 0)
  constexpr explicit extents(I... dynamic_extents) : dynamic_{static_cast<index_t>(dynamic_extents)...} {
    for (std::size_t k = 0; k < rank_dynamic(); ++k)
      if (dynamic_[k] < 0)
        detail::fail<shape_error>("pallas::shape: run-time extent ", k, " is ", dynamic_[k],
                                  ", must be >= 0");
  }

  /// From all rank() extents; throws pallas::shape_error when a static one disagrees.
  static constexpr extents from_all(std::array<index_t, sizeof...(Es)> const& all) {
    extents result{detail_tag{}};
    std::size_t k = 0;
    for (std::size_t r = 0; r < rank(); ++r) {
      if (all[r] < 0)
        detail::fail<shape_error>("pallas::shape: extent of dimension ", r, " is ", all[r],
                                  ", must be >= 0");
      if (static_extents[r] == dyn) {
        if constexpr (num_dynamic > 0) result.dynamic_[k++] = all[r];
      } else if (static_extents[r] != all[r])
        detail::fail<shape_error>("pallas::shape: dimension ", r, " has static extent ",
                                  static_extents[r], " but ", all[r], " was given");
    }
    return result;
  }

  /// The extent of dimension r.
  constexpr index_t extent(std::size_t r) const noexcept {
    if constexpr (is_static) {
      return static_extents[r];
    } else {
      if (static_extents[r] != dyn) return static_extents[r];
      std::size_t k = 0;
      for (std::size_t q = 0; q < r; ++q) k += static_extents[q] == dyn;
      return dynamic_[k];
    }
  }

  /// The extent of dimension r, negative r counting from the end: `x.shape[0]`,
  /// `x.shape[-1]` (Python's); a constant expression when that extent is static.
  constexpr index_t operator[](int r) const {
    int const n = static_cast<int>(rank());
    if (r < -n || r >= n)
      detail::fail<shape_error>("pallas::shape: dimension ", r, " is out of range for rank ", n);
    return extent(static_cast<std::size_t>(r < 0 ? r + n : r));
  }

  /// All extents as an array.
  constexpr std::array<index_t, sizeof...(Es)> all() const noexcept {
    std::array<index_t, sizeof...(Es)> out{};
    for (std::size_t r = 0; r < rank(); ++r) out[r] = extent(r);
    return out;
  }

  /// The product of the extents.
  constexpr index_t size() const noexcept {
    if constexpr (is_static) {
      return static_size();
    } else {
      index_t n = 1;
      for (std::size_t r = 0; r < rank(); ++r) n *= extent(r);
      return n;
    }
  }

  /// Same rank and extents.
  template <index_t... Fs>
  friend constexpr bool operator==(extents const& a, extents<Fs...> const& b) noexcept {
    if constexpr (sizeof...(Fs) != sizeof...(Es)) {
      return false;
    } else {
      return a.all() == b.all();
    }
  }

  /// Prints `(8, 128)`.
  friend std::ostream& operator<<(std::ostream& out, extents const& e) {
    out << '(';
    for (std::size_t r = 0; r < rank(); ++r) out << (r ? ", " : "") << e.extent(r);
    if (rank() == 1) out << ',';
    return out << ')';
  }

 private:
  template <index_t...>
  friend class extents;
  struct detail_tag {};
  constexpr explicit extents(detail_tag) noexcept {}
  // std::array<index_t, 0> is not an empty class (libstdc++ gives it a byte), so an
  // all-static shape stores an empty struct: a static Ref is then one pointer.
  struct no_dynamic_extents {};
  using dynamic_storage = std::conditional_t<num_dynamic == 0, no_dynamic_extents,
                                             std::array<index_t, num_dynamic>>;
  [[no_unique_address]] dynamic_storage dynamic_{};
};

/// The shape of an array or block: `pl::shape<8, 128>`, `pl::shape<pl::dyn, 128>`.
template <index_t... Es>
using shape = extents<Es...>;

/// The strides of a Ref, in elements.
template <index_t... Ss>
using strides = extents<Ss...>;

namespace detail {

template <class E>
struct is_extents : std::false_type {};
template <index_t... Es>
struct is_extents<extents<Es...>> : std::true_type {};

/// The static row-major stride of dimension r of E, or dyn when it depends on a run-time
/// extent.
template <class E>
constexpr index_t static_row_major_stride(std::size_t r) {
  index_t s = 1;
  for (std::size_t q = r + 1; q < E::rank(); ++q) {
    if (E::static_extent(q) == dyn) return dyn;
    s *= E::static_extent(q);
  }
  return s;
}

template <class E, class Seq = std::make_index_sequence<E::rank()>>
struct row_major_strides;
template <class E, std::size_t... R>
struct row_major_strides<E, std::index_sequence<R...>> {
  using type = strides<static_row_major_stride<E>(R)...>;
};

}  // namespace detail

/// A pallas::shape (or strides) type.
template <class T>
concept Extents = detail::is_extents<std::remove_cvref_t<T>>::value;

namespace detail {

/// `x.shape` of a Ref, an Array or a block of static shape: a shape that is also callable,
/// so that `x.shape[0]` (Python's spelling) and `x.shape()` both work.
template <class Shape>
struct shape_constant : Shape {
  constexpr Shape const& operator()() const noexcept { return *this; }
};

/// Where a Ref or an Array keeps its shape. A static shape is stored nowhere and exposed
/// as a `static constexpr` member `shape`, so `pl::grid<x_hbm.shape[0] / 128>` compiles
/// wherever x_hbm is an object (not a reference; `decltype(x)::shape[0]` names it through
/// the type). Run-time extents are stored and read with `shape()`.
template <class Shape, bool = Shape::is_static>
class shape_member {
 public:
  constexpr explicit shape_member(Shape s) noexcept : shape_(s) {}
  constexpr Shape const& shape() const noexcept { return shape_; }

 protected:
  Shape shape_;
};
template <class Shape>
class shape_member<Shape, true> {
 public:
  constexpr shape_member() noexcept = default;
  constexpr explicit shape_member(Shape) noexcept {}
  static constexpr shape_constant<Shape> shape{};

 protected:
  static constexpr Shape shape_{};
};

}  // namespace detail

/// The row-major (C order) strides of shape E.
template <class E>
using row_major_strides_t = typename detail::row_major_strides<E>::type;

/// The row-major strides of a shape value.
template <class E>
constexpr row_major_strides_t<E> row_major_strides(E const& shape) {
  using S = row_major_strides_t<E>;
  std::array<index_t, E::rank()> s{};
  index_t running = 1;
  for (std::size_t r = E::rank(); r-- > 0;) {
    s[r] = running;
    running *= shape.extent(r);
  }
  return S::from_all(s);
}

}  // namespace pallas
