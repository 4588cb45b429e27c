// SPDX-License-Identifier: Apache-2.0
#pragma once
// Block expressions: the values a kernel computes with on VMEM blocks.
//
// `x[pl::ellipsis] * 2 + y[pl::ellipsis]` builds a lazy expression with a static shape and
// a dtype; assigning it to a block (`o[pl::ellipsis] = ...`) evaluates it in one pass. This
// header defines what every expression provides, and the leaves: strided views of memory
// (`detail::leaf`, which VMEM block views and owned blocks become) and scalars.
//
// The gotcha, as in Eigen: an expression made from a ref reads the ref's memory when it is
// assigned, not when it is built; `auto v = x[pl::ellipsis];` is a view of x, not a copy.
// `pl::eval(e)`, `e.eval()` and `pl::load(ref)` make an owning `pl::block<T, Shape>`.
//
// Every expression type E (derived from pl::expression_base) provides:
//   value_type, shape_type (a static pl::shape), rank
//   flat_shape              static: every node of E has E's shape or one element, so E can
//                           be walked as one flat row when its leaves are contiguous
//   contiguous()            run time: every leaf is contiguous, row-major
//   unit_rows()             run time: every leaf has stride 1 along the last dimension
//   row<Unit>(idx)          a callable j -> value at (idx[0], ..., idx[rank-2], j); with Unit
//                           the leaves assume stride 1 along the last dimension. A flat walk
//                           (flat_shape, every leaf contiguous) calls row<true>(0...) with j
//                           the flat element index, so a node must pass j on unchanged to
//                           every child of its own shape (see broadcasts_last_v), even when the
//                           last extent is 1
//   aliases(region, remap)  whether E reads the memory `region` other than element by
//                           element at the same index (then an assignment needs a temporary)

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>

#include <pallas/dtype.hpp>
#include <pallas/expr/scalar_dtype.hpp>
#include <pallas/shape.hpp>

namespace pallas {

/// The base of every block expression (lazy nodes, views, owned blocks, deferred
/// products). It makes `pallas` an associated namespace of all of them, so the operators
/// are found.
struct expression_base {};

namespace detail {

/// Marks expressions that cannot be walked element by element (a deferred `pl::dot`):
/// they are evaluated into a block when used inside another expression.
struct deferred_marker {};

template <std::size_t R>
using index_array = std::array<index_t, R>;

}  // namespace detail

/// Anything that can be an operand of a block expression, except scalars.
template <class E>
concept Operand = std::derived_from<std::remove_cvref_t<E>, expression_base>;

/// An expression that can be walked element by element.
template <class E>
concept Expression =
    Operand<E> && !std::derived_from<std::remove_cvref_t<E>, detail::deferred_marker>;

/// A C++ arithmetic value: weakly typed like a Python scalar (`x_bf16 * 2` stays bf16).
template <class S>
concept WeakScalar = std::is_arithmetic_v<std::remove_cvref_t<S>>;

/// A pallas dtype value that is not a C++ arithmetic type (bfloat16, float16): strongly
/// typed, like a 0-d jnp array.
template <class S>
concept StrongScalar =
    Dtype<std::remove_cvref_t<S>> && !std::is_arithmetic_v<std::remove_cvref_t<S>>;

/// Any scalar an expression can be combined with.
template <class S>
concept Scalar = WeakScalar<S> || StrongScalar<S>;

template <class T, Extents Shape>
class block;

/// Static axes of a reduction, roll, iota or concatenation: `pl::axis<1>`, `pl::axis<-1>`,
/// `pl::axis<0, 2>` (Python's `axis=1`, `axis=(0, 2)`). Negative axes count from the end.
template <int... A>
struct axis_t {
  explicit constexpr axis_t() = default;
};
/// The option value: `pl::sum(x, pl::axis<1>)`.
template <int... A>
inline constexpr axis_t<A...> axis{};

/// `keepdims=True` of a reduction.
struct keepdims_t {
  explicit constexpr keepdims_t() = default;
};
/// The option value: `pl::sum(x, pl::axis<1>, pl::keepdims)`.
inline constexpr keepdims_t keepdims{};

namespace detail {

// ---------------------------------------------------------------------------------------
// shapes

/// Shape S with leading 1s up to rank R (numpy broadcasting aligns trailing dimensions).
template <class S, std::size_t R, class Seq = std::make_index_sequence<R>>
struct pad_shape;
template <class S, std::size_t R, std::size_t... K>
struct pad_shape<S, R, std::index_sequence<K...>> {
  using type = extents<(K + S::rank() < R ? index_t{1} : S::static_extent(K + S::rank() - R))...>;
};

template <class A, class B>
struct broadcast_dims;
template <index_t... A, index_t... B>
struct broadcast_dims<extents<A...>, extents<B...>> {
  static constexpr bool ok = ((A == B || A == 1 || B == 1) && ...);
  using type = extents<(A == 1 ? B : A)...>;
  /// Reports incompatible shapes; the numbers of both shapes appear in the condition.
  static constexpr bool check() {
    static_assert(((A == B || A == 1 || B == 1) && ...),
                  "pallas::broadcast: operand shapes must agree in every dimension, or be 1 "
                  "there (numpy broadcasting)");
    return ok;
  }
};

template <class A, class B>
inline constexpr std::size_t max_rank = A::rank() > B::rank() ? A::rank() : B::rank();

template <class A, class B>
using broadcast_pair =
    broadcast_dims<typename pad_shape<A, max_rank<A, B>>::type,
                   typename pad_shape<B, max_rank<A, B>>::type>;

/// Whether shapes A and B broadcast together.
template <class A, class B>
inline constexpr bool broadcastable_v = broadcast_pair<A, B>::ok;

/// The broadcast shape of A and B; when they do not broadcast, the shape of the operand of
/// higher rank (A on a tie), so that a reported mistake does not cascade.
template <class A, class B>
using broadcast_shape_t =
    std::conditional_t<broadcast_pair<A, B>::ok, typename broadcast_pair<A, B>::type,
                       std::conditional_t<(A::rank() >= B::rank()), A, B>>;

/// extents<H::dims[0], H::dims[1], ...> for a type H with a constexpr std::array `dims`.
template <class H, class Seq = std::make_index_sequence<H::dims.size()>>
struct extents_from;
template <class H, std::size_t... K>
struct extents_from<H, std::index_sequence<K...>> {
  using type = extents<H::dims[K]...>;
};

/// Checks static axes against a rank: in [-rank, rank) and no axis twice.
template <std::size_t Rank, int... A>
struct axes_check {
  static constexpr int rank = static_cast<int>(Rank);
  static constexpr bool in_range = ((A >= -rank && A < rank) && ...);
  static constexpr bool distinct() {
    std::array<int, sizeof...(A)> const n{(A < 0 ? A + rank : A)...};
    for (std::size_t i = 0; i < n.size(); ++i)
      for (std::size_t k = i + 1; k < n.size(); ++k)
        if (n[i] == n[k]) return false;
    return true;
  }
  static constexpr bool ok = in_range && distinct();
  /// Reports the first broken rule (one error).
  static constexpr bool check() {
    static_assert(((A >= -rank && A < rank) && ...),
                  "pallas::axis: every axis must be in [-rank, rank) (axis, rank)");
    if constexpr (in_range)
      static_assert(distinct(), "pallas::axis: an axis appears twice");
    return ok;
  }
  /// Whether dimension r is one of the axes.
  static constexpr bool contains([[maybe_unused]] std::size_t r) noexcept {
    return ((static_cast<int>(r) == (A < 0 ? A + rank : A)) || ... || false);
  }
};

/// The index of an operand of shape C inside a result of rank R (trailing dimensions
/// aligned; dimensions of extent 1 broadcast).
template <class C, std::size_t R>
constexpr index_array<C::rank()> map_index(index_array<R> const& idx) noexcept {
  constexpr std::size_t rc = C::rank();
  index_array<rc> out{};
  if constexpr (rc <= R) {
    for (std::size_t k = 0; k < rc; ++k)
      out[k] = C::static_extent(k) == 1 ? 0 : idx[R - rc + k];
  }
  return out;
}

/// Whether an operand of shape C is constant along the last dimension of its parent.
template <class C>
inline constexpr bool last_const_v = C::rank() == 0 || C::static_extent(C::rank() - 1) == 1;

/// Whether an operand of shape C, inside a parent of shape S, is read at element 0 of its
/// row whatever the parent's position j along the row: it is broadcast along the last
/// dimension. An operand of the parent's own shape is read at j even when the last extent
/// is 1, because a flat walk (below) passes the flat element index as j.
template <class C, class S>
inline constexpr bool broadcasts_last_v = !std::is_same_v<C, S> && last_const_v<C>;

/// Whether an operand of shape C can follow its parent of shape S through a flat walk.
template <class C, class S>
inline constexpr bool flat_child_v = std::is_same_v<C, S> || C::static_size() == 1;

/// Whether the row-major strides `s` make shape S contiguous.
template <class S>
constexpr bool is_contiguous(index_array<S::rank()> const& s) noexcept {
  index_t expected = 1;
  for (std::size_t r = S::rank(); r-- > 0;) {
    if (S::static_extent(r) != 1 && s[r] != expected) return false;
    expected *= S::static_extent(r);
  }
  return true;
}

/// The row-major strides of static shape S.
template <class S>
constexpr index_array<S::rank()> row_major(S = {}) noexcept {
  index_array<S::rank()> s{};
  index_t running = 1;
  for (std::size_t r = S::rank(); r-- > 0;) {
    s[r] = running;
    running *= S::static_extent(r);
  }
  return s;
}

/// Advances a multi-index over the first R-1 dimensions of S (the last is the row).
template <class S>
constexpr void next_row(index_array<S::rank()>& idx) noexcept {
  for (std::size_t r = S::rank() - 1; r-- > 0;) {
    if (++idx[r] < S::static_extent(r)) return;
    idx[r] = 0;
  }
}

/// The number of rows (elements / last extent) of static shape S.
template <class S>
inline constexpr index_t row_count_v =
    S::rank() == 0 ? 1
                   : (S::static_extent(S::rank() - 1) == 0
                          ? 0
                          : S::static_size() / S::static_extent(S::rank() - 1));

template <class S>
inline constexpr index_t row_length_v = S::rank() == 0 ? 1 : S::static_extent(S::rank() - 1);

// ---------------------------------------------------------------------------------------
// memory regions, for aliasing

/// The memory an assignment writes: an assigned expression that reads it other than
/// element by element at the same index is evaluated into a temporary first.
struct memory_region {
  char const* lo = nullptr;  // first byte
  char const* hi = nullptr;  // one past the last byte
  void const* data = nullptr;
  std::size_t element_size = 0;
  std::size_t rank = 0;
  index_t const* extents = nullptr;
  index_t const* strides = nullptr;
};

/// The bytes spanned by `count` elements of size `elem` at `p` with the given extents and
/// strides: [lo, hi).
template <std::size_t R>
inline void span_of(void const* p, std::size_t elem, std::array<index_t, R> const& ext,
                    index_array<R> const& str, char const*& lo, char const*& hi) noexcept {
  index_t low = 0, high = 0;
  for (std::size_t r = 0; r < R; ++r) {
    if (ext[r] == 0) {
      lo = hi = static_cast<char const*>(p);
      return;
    }
    index_t const reach = (ext[r] - 1) * str[r];
    if (reach < 0)
      low += reach;
    else
      high += reach;
  }
  auto const base = reinterpret_cast<std::uintptr_t>(p);
  lo = reinterpret_cast<char const*>(base + static_cast<std::uintptr_t>(low * static_cast<index_t>(elem)));
  hi = reinterpret_cast<char const*>(base + static_cast<std::uintptr_t>((high + 1) * static_cast<index_t>(elem)));
}

template <class T, class S>
memory_region region_of(T const* p, index_array<S::rank()> const& strides) noexcept {
  memory_region m;
  span_of<S::rank()>(p, sizeof(T), S::static_extents, strides, m.lo, m.hi);
  m.data = p;
  m.element_size = sizeof(T);
  m.rank = S::rank();
  m.extents = S::static_extents.data();
  m.strides = strides.data();
  return m;
}

// ---------------------------------------------------------------------------------------
// the common members

/// Members every expression has: `.eval()` (an owning pl::block), `.astype<U>()`.
/// Defined by expr/block.hpp and expr/astype.hpp.
template <class D>
struct expr_methods : expression_base {
  /// The value, computed now, as an owning pl::block.
  auto eval() const;
  /// jnp `x.astype(U)`.
  template <class U>
  auto astype() const;

 protected:
  constexpr D const& self() const noexcept { return static_cast<D const&>(*this); }
};

// ---------------------------------------------------------------------------------------
// leaves

/// A strided view of memory with static shape Shape, read element by element: what VMEM
/// block views, owned blocks and their transposes, slices and reshapes are seen as inside
/// an expression. `owner` keeps owned memory alive (empty for views of refs).
template <class T, class Shape>
class leaf : public expr_methods<leaf<T, Shape>> {
  static_assert(Dtype<T>, "pallas::block: the element type must be a pallas dtype");
  static_assert(Shape::is_static, "pallas::block: blocks must have a static shape");

 public:
  using value_type = T;
  using shape_type = Shape;
  static constexpr std::size_t rank = Shape::rank();
  static constexpr bool flat_shape = true;

  leaf() = default;
  leaf(T const* data, index_array<rank> const& strides,
       std::shared_ptr<void const> owner = {}) noexcept
      : data_(data), strides_(strides), owner_(std::move(owner)) {}

  T const* data() const noexcept { return data_; }
  index_array<rank> const& strides() const noexcept { return strides_; }
  std::shared_ptr<void const> const& owner() const noexcept { return owner_; }

  bool contiguous() const noexcept { return is_contiguous<Shape>(strides_); }
  bool unit_rows() const noexcept {
    if constexpr (rank == 0)
      return true;
    else
      return Shape::static_extent(rank - 1) <= 1 || strides_[rank - 1] == 1;
  }

  template <bool Unit>
  auto row(index_array<rank> const& idx) const noexcept {
    T const* p = data_;
    if constexpr (rank > 1)
      for (std::size_t r = 0; r + 1 < rank; ++r) p += idx[r] * strides_[r];
    if constexpr (Unit || rank == 0) {
      return [p](index_t j) noexcept { return p[j]; };
    } else {
      index_t const s = strides_[rank - 1];
      return [p, s](index_t j) noexcept { return p[j * s]; };
    }
  }

  bool aliases(memory_region const& m, bool remapped) const noexcept {
    char const* lo = nullptr;
    char const* hi = nullptr;
    span_of<rank>(data_, sizeof(T), Shape::static_extents, strides_, lo, hi);
    if (lo == hi || m.lo == m.hi || hi <= m.lo || m.hi <= lo) return false;
    if (remapped || m.data != static_cast<void const*>(data_) || m.element_size != sizeof(T) ||
        m.rank != rank)
      return true;
    for (std::size_t r = 0; r < rank; ++r) {
      if (m.extents[r] != Shape::static_extent(r)) return true;
      if (Shape::static_extent(r) > 1 && m.strides[r] != strides_[r]) return true;
    }
    return false;
  }

 private:
  T const* data_ = nullptr;
  index_array<rank> strides_{};
  std::shared_ptr<void const> owner_{};
};

/// A constant of static shape Shape (rank 0 for scalars): `pl::full` and scalars.
template <class T, class Shape = shape<>>
class constant : public expr_methods<constant<T, Shape>> {
  static_assert(Dtype<T>, "pallas::full: the value must be a pallas dtype");

 public:
  using value_type = T;
  using shape_type = Shape;
  static constexpr std::size_t rank = Shape::rank();
  static constexpr bool flat_shape = true;

  constexpr constant() = default;
  constexpr explicit constant(T v) noexcept : value(v) {}

  constexpr bool contiguous() const noexcept { return true; }
  constexpr bool unit_rows() const noexcept { return true; }
  template <bool Unit>
  constexpr auto row(index_array<rank> const&) const noexcept {
    T const v = value;
    return [v](index_t) noexcept { return v; };
  }
  constexpr bool aliases(memory_region const&, bool) const noexcept { return false; }

  T value{};
};

/// A rank-0 constant.
template <class T>
using scalar = constant<T, shape<>>;

template <class T>
struct is_leaf : std::false_type {};
template <class T, class S>
struct is_leaf<leaf<T, S>> : std::true_type {};

}  // namespace detail
}  // namespace pallas
