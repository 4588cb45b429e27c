// SPDX-License-Identifier: Apache-2.0
#pragma once
// pl::Ref<T, Shape, Space>: a non-owning strided view of memory in one memory space.
// `.at(...)` makes a sub-view and moves no data; `ref[pl::ellipsis]` is the whole block
// as an expression (VMEM only); `ref(i, j)` is one element (VMEM and SMEM). A ref of const
// elements (`Ref<float const, ...>`, how kernels see their inputs) is read-only;
// value_type keeps the const, so `std::remove_cv_t<value_type>` is its dtype.

#include <array>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <pallas/config.hpp>
#include <pallas/detail/numbers_in_messages.hpp>
#include <pallas/detail/checked/checked_access.hpp>
#include <pallas/error.hpp>
#include <pallas/memory_space.hpp>
#include <pallas/shape.hpp>
#include <pallas/slice.hpp>

namespace pallas {

/// The whole of a VMEM ref as an expression that can be read and assigned; defined by
/// block_view.hpp. `o[pl::ellipsis] = x[pl::ellipsis] + y[pl::ellipsis]`.
template <class R>
class block_view;

/// A view of memory a kernel can see (Pallas' `Ref`): `T` elements with extents `Shape`
/// and `Strides` (in elements, row-major by default), in memory space `Space` (HBM, VMEM,
/// SMEM, semaphores). It owns nothing; `.at(...)` and `ref[pl::ds<8>(i), ...]` make
/// sub-views without moving data. What a ref allows follows its space: VMEM and SMEM refs
/// are read and written element-wise or as blocks (`ref[pl::ellipsis]`), HBM refs only
/// through copies (`sync_copy`, `make_async_copy`); a mistake is a compile error.
template <class T, Extents Shape, memory_space Space, Extents Strides = row_major_strides_t<Shape>>
class Ref;

namespace detail {

namespace mp = boost::mp11;

template <class T>
struct is_ref : std::false_type {};
template <class T, class Sh, memory_space Sp, class St>
struct is_ref<Ref<T, Sh, Sp, St>> : std::true_type {};

// What one indexer does to a dimension of static extent E (pallas::dyn if run-time):
// whether the dimension is kept, and its new static extent. check() holds the static
// rules; it is a function so that a failed rule leaves the class complete (clang would
// otherwise add an error per use of it).
template <class I, index_t E>
struct index_rule;

template <DynamicInt I, index_t E>
struct index_rule<I, E> {
  static constexpr bool check() { return true; }
  static constexpr bool kept = false;
  static constexpr index_t extent = 0;
};

template <index_t V, index_t E>
struct index_rule<c_t<V>, E> {
  static constexpr bool check() {
    static_assert(V >= 0, "pallas::Ref::at: a static index must be >= 0");
    static_assert(E == dyn || V < E,
                  "pallas::Ref::at: a static index must be inside its dimension (index < extent)");
    return V >= 0 && (E == dyn || V < E);
  }
  static constexpr bool kept = false;
  static constexpr index_t extent = 0;
};

template <index_t S, class Start, index_t E>
struct index_rule<static_slice<S, Start>, E> {
  static constexpr bool check() {
    static_assert(E == dyn || S <= E,
                  "pallas::Ref::at: a static slice must fit its dimension (size <= extent)");
    return E == dyn || S <= E;
  }
  static constexpr bool kept = true;
  static constexpr index_t extent = S;
};

template <index_t S, index_t V, index_t E>
struct index_rule<static_slice<S, c_t<V>>, E> {
  static constexpr bool check() {
    static_assert(V >= 0, "pallas::Ref::at: a static slice must start at >= 0");
    static_assert(E == dyn || V + S <= E,
                  "pallas::Ref::at: a static slice must stay inside its dimension "
                  "(start + size <= extent)");
    return V >= 0 && (E == dyn || V + S <= E);
  }
  static constexpr bool kept = true;
  static constexpr index_t extent = S;
};

template <index_t E>
struct index_rule<dynamic_slice, E> {
  static constexpr bool check() { return true; }
  static constexpr bool kept = true;
  static constexpr index_t extent = dyn;
};

template <index_t E>
struct index_rule<full_extent_t, E> {
  static constexpr bool check() { return true; }
  static constexpr bool kept = true;
  static constexpr index_t extent = E;
};

template <class List>
struct to_extents;
template <class... C>
struct to_extents<mp::mp_list<C...>> {
  using type = extents<C::value...>;
};

// Indexers with the ellipsis expanded and trailing dimensions filled with full_extent.
template <std::size_t Rank, class... I>
constexpr auto normalize_indexers(I const&... idx) {
  constexpr std::size_t ellipses = (std::is_same_v<I, ellipsis_t> + ... + std::size_t{0});
  static_assert(ellipses <= 1, "pallas::Ref::at: at most one pl::ellipsis");
  constexpr std::size_t given = sizeof...(I) - ellipses;
  static_assert(given <= Rank, "pallas::Ref::at: more indices than the ref has dimensions");
  if constexpr (given > Rank) {
    return std::tuple<>{};
  } else {
    auto fill = []<std::size_t... K>(std::index_sequence<K...>) {
      return std::tuple{((void)K, full_extent)...};
    };
    auto expand = [&](auto const& one) {
      if constexpr (std::is_same_v<std::remove_cvref_t<decltype(one)>, ellipsis_t>)
        return fill(std::make_index_sequence<Rank - given>{});
      else
        return std::tuple{one};
    };
    if constexpr (ellipses == 1)
      return std::tuple_cat(expand(idx)...);
    else
      return std::tuple_cat(std::tuple{idx...}, fill(std::make_index_sequence<Rank - given>{}));
  }
}

/// The first index of an element access, with the caller's place: converting the index
/// evaluates the default argument where the call is written, so `ref(i, j)` knows its line
/// (a function parameter pack can take no default argument after it).
struct located_index {
  template <Integer I>
  constexpr located_index(I const& i, place at = place::here()) noexcept  // NOLINT: implicit on purpose
      : value(static_cast<index_t>(i)), where(at) {}
  index_t value;
  place where;
};

/// `pl::ellipsis` with the caller's place (see located_index).
struct located_ellipsis {
  constexpr located_ellipsis(ellipsis_t, place at = place::here()) noexcept  // NOLINT: implicit on purpose
      : where(at) {}
  place where;
};

/// An lvalue that stands in for an element after a static_assert reported a mistake, so
/// that the mistake is the only error.
template <class U>
U& stand_in() {
  static U value{};
  return value;
}

inline void check_index(index_t i, std::size_t dim, index_t extent) {
  if (i < 0 || i >= extent)
    fail<index_error>("pallas::Ref::at: index ", i, " is out of bounds for dimension ", dim,
                      " of extent ", extent);
}

inline void check_slice(index_t start, index_t size, std::size_t dim, index_t extent) {
  if (size < 0)
    fail<index_error>("pallas::Ref::at: slice of size ", size, " in dimension ", dim);
  if (start < 0 || start + size > extent)
    fail<index_error>("pallas::Ref::at: slice [", start, ", ", start + size,
                      ") leaves dimension ", dim, " of extent ", extent, " (offset ", start,
                      ", size ", size, ")");
}

}  // namespace detail

/// A pl::Ref type.
template <class T>
concept AnyRef = detail::is_ref<std::remove_cvref_t<T>>::value;

template <class T, Extents Shape, memory_space Space, Extents Strides>
class Ref : public detail::shape_member<Shape> {
  using shape_base = detail::shape_member<Shape>;
  static_assert(Shape::rank() == Strides::rank(),
                "pallas::Ref: the strides must have one entry per dimension");

 public:
  using value_type = T;                         ///< the element type (const for read-only refs)
  using element_type = T;                       ///< the element type, as std::span names it
  using shape_type = Shape;                     ///< the extents
  using strides_type = Strides;                 ///< the strides, in elements
  static constexpr memory_space space = Space;  ///< where the elements live

  /// The number of dimensions.
  static constexpr std::size_t rank() noexcept { return Shape::rank(); }

  /// True when the type alone proves the elements are contiguous and row-major.
  static constexpr bool is_static_contiguous =
      Shape::is_static && std::is_same_v<Strides, row_major_strides_t<Shape>>;

  /// A null ref (static shapes): what a default-constructed operand holds.
  constexpr Ref() noexcept
    requires(Shape::is_static && Strides::is_static)
  = default;

  /// A view of `data` with the given shape, row-major.
  constexpr Ref(T* data, Shape shape)
    requires std::is_same_v<Strides, row_major_strides_t<Shape>>
      : shape_base(shape), data_(data), strides_(row_major_strides(shape)) {}

  /// A view of `data` with the given shape and strides (in elements).
  constexpr Ref(T* data, Shape shape, Strides strides) noexcept
      : shape_base(shape), data_(data), strides_(strides) {}

  /// The first element.
  constexpr T* data() const noexcept { return data_; }
  // `shape`: the static constexpr member `x.shape` (`x.shape[0]` in constant expressions,
  // `x.shape()` too) for static shapes, the function `x.shape()` otherwise (shape_member).
  /// The strides, in elements.
  constexpr Strides const& strides() const noexcept { return strides_; }
  /// The extent of dimension `r`.
  constexpr index_t extent(std::size_t r) const noexcept { return this->shape_.extent(r); }
  /// The stride of dimension `r`, in elements.
  constexpr index_t stride(std::size_t r) const noexcept { return strides_.extent(r); }
  /// The number of elements.
  constexpr index_t size() const noexcept { return this->shape_.size(); }

  /// Whether the elements are contiguous and row-major.
  constexpr bool is_contiguous() const noexcept {
    if constexpr (is_static_contiguous) {
      return true;
    } else {
      index_t expected = 1;
      for (std::size_t r = rank(); r-- > 0;) {
        if (this->shape_.extent(r) != 1 && strides_.extent(r) != expected) return false;
        expected *= this->shape_.extent(r);
      }
      return true;
    }
  }

  /// A sub-view (`ref.at[...]` in Pallas): integers drop a dimension, `pl::ds<N>(start)`
  /// and `pl::ds(start, n)` slice it, `pl::full_extent` keeps it, `pl::ellipsis` stands for
  /// every dimension not named. Dimensions after the last indexer are kept whole.
  template <Indexer... I>
  constexpr auto at(I const&... indexers) const {
    auto norm = detail::normalize_indexers<rank()>(std::remove_cvref_t<I>(indexers)...);
    return at_normalized(norm, std::make_index_sequence<std::tuple_size_v<decltype(norm)>>{});
  }

  /// The whole block as an expression: `x[pl::ellipsis]`. VMEM refs only. Checked mode
  /// names the line of a racy block read or store (the ellipsis carries it).
  constexpr auto operator[](detail::located_ellipsis e) const {
    static_assert(!is_dma_only(Space) || !std::is_const_v<T>,
                  "pallas::Ref: cannot load, store or compute on an HBM/ANY ref; copy it to "
                  "VMEM with pltpu::sync_copy or pltpu::make_async_copy first (and this ref is "
                  "read-only: pallas::kernel: input refs are read-only)");
    static_assert(!is_dma_only(Space) || std::is_const_v<T>,
                  "pallas::Ref: cannot load, store or compute on an HBM/ANY ref; copy it to "
                  "VMEM with pltpu::sync_copy or pltpu::make_async_copy first");
    static_assert(is_dma_only(Space) || Space != memory_space::smem,
                  "pallas::Ref: SMEM refs take scalar loads and stores only; index every "
                  "dimension: ref(i, j) or ref[i]");
    static_assert(is_dma_only(Space) || Space == memory_space::smem ||
                      Space == memory_space::vmem,
                  "pallas::Ref: only VMEM refs can be read as blocks");
    // After a mistake above, a (writable) VMEM view of the same memory stands in, so that
    // the mistake is the only error.
    if constexpr (is_dma_only(Space))
      return block_view<Ref<std::remove_cv_t<T>, Shape, memory_space::vmem, Strides>>(
          {const_cast<std::remove_cv_t<T>*>(data_), this->shape_, strides_}, e.where);
    else
      return block_view<Ref<T, Shape, memory_space::vmem, Strides>>(in_space<memory_space::vmem>(), e.where);
  }

  /// `ref[i]`: one element of a rank-1 SMEM ref (checked like ref(i)).
  constexpr decltype(auto) operator[](detail::located_index i) const
    requires(Space == memory_space::smem && Shape::rank() == 1)
  {
    return element(std::array<index_t, 1>{i.value}, i.where);
  }

  /// `ref[i]`: for VMEM refs, row i as a block.
  template <Integer I>
    requires(!(Space == memory_space::smem && Shape::rank() == 1))
  constexpr decltype(auto) operator[](I const& i) const {
    return at(i)[ellipsis];
  }

  /// A rank-0 ref's element: `ref()`.
  constexpr decltype(auto) operator()(detail::place where = detail::place::here()) const { return element_access(where); }

  /// One element, every dimension indexed: `ref(i, j)`. VMEM and SMEM refs only. Checked
  /// mode: the index must be in bounds, and the element must not be the destination of a
  /// copy in flight (pallas::race_error naming the line of the access).
  template <Integer... I>
  constexpr decltype(auto) operator()(detail::located_index first, I const&... rest) const {
    return element_access(first.where, first.value, static_cast<index_t>(rest)...);
  }

  /// The same memory seen as another space: used by the runtime to hand out block
  /// buffers, never needed by kernels.
  template <memory_space To>
  constexpr Ref<T, Shape, To, Strides> in_space() const noexcept {
    return {data_, this->shape_, strides_};
  }

 private:
  template <class... I>
  constexpr decltype(auto) element_access(detail::place where, I... idx) const {
    static_assert(!is_dma_only(Space) || !std::is_const_v<T>,
                  "pallas::Ref: cannot load, store or compute on an HBM/ANY ref; copy it to "
                  "VMEM with pltpu::sync_copy or pltpu::make_async_copy first (and this ref is "
                  "read-only: pallas::kernel: input refs are read-only)");
    static_assert(!is_dma_only(Space) || std::is_const_v<T>,
                  "pallas::Ref: cannot load, store or compute on an HBM/ANY ref; copy it to "
                  "VMEM with pltpu::sync_copy or pltpu::make_async_copy first");
    static_assert(is_dma_only(Space) || detail::counts_match<sizeof...(I), rank()>::value,
                  "pallas::Ref: element access needs one index per dimension");
    if constexpr (is_dma_only(Space)) {
      return detail::stand_in<std::remove_cv_t<T>>();  // reported above
    } else if constexpr (sizeof...(I) != rank()) {
      return (*data_);
    } else {
      return element(std::array<index_t, sizeof...(I)>{idx...}, where);
    }
  }

  template <std::size_t R>
  constexpr T& element(std::array<index_t, R> const& ix, detail::place where) const {
    index_t offset = 0;
    for (std::size_t r = 0; r < R; ++r) {
      if constexpr (checked_mode) detail::check_index(ix[r], r, this->shape_.extent(r));
      offset += ix[r] * strides_.extent(r);
    }
    if constexpr (checked_mode) {
      if (!std::is_constant_evaluated()) detail::check_element_access(data_ + offset, sizeof(T), where);
    } else {
      (void)where;
    }
    return data_[offset];
  }

  template <class Tuple, std::size_t... R>
  constexpr auto at_normalized(Tuple const& idx, std::index_sequence<R...>) const {
    namespace mp = boost::mp11;
    if constexpr (sizeof...(R) != rank()) {
      return *this;  // normalize_indexers already reported the mistake
    } else if constexpr (!(detail::index_rule<std::tuple_element_t<R, Tuple>,
                                              Shape::static_extent(R)>::check() &&
                           ...)) {
      return *this;  // a static rule failed and said so
    } else {
      using rules = mp::mp_list<
          detail::index_rule<std::tuple_element_t<R, Tuple>, Shape::static_extent(R)>...>;
      using kept_extents = mp::mp_append<
          mp::mp_list<>,
          std::conditional_t<mp::mp_at_c<rules, R>::kept,
                             mp::mp_list<c_t<mp::mp_at_c<rules, R>::extent>>, mp::mp_list<>>...>;
      using kept_strides = mp::mp_append<
          mp::mp_list<>,
          std::conditional_t<mp::mp_at_c<rules, R>::kept,
                             mp::mp_list<c_t<Strides::static_extent(R)>>, mp::mp_list<>>...>;
      using new_shape = typename detail::to_extents<kept_extents>::type;
      using new_strides = typename detail::to_extents<kept_strides>::type;

      std::array<index_t, new_shape::rank()> ext{};
      std::array<index_t, new_shape::rank()> str{};
      std::size_t k = 0;
      index_t offset = 0;
      auto one = [&](std::size_t r, auto const& ix) {
        using I = std::remove_cvref_t<decltype(ix)>;
        index_t const extent = this->shape_.extent(r);
        index_t const stride = strides_.extent(r);
        if constexpr (Integer<I>) {
          index_t const i = static_cast<index_t>(ix);
          detail::check_index(i, r, extent);
          offset += i * stride;
        } else if constexpr (std::is_same_v<I, full_extent_t>) {
          ext[k] = extent;
          str[k++] = stride;
        } else if constexpr (std::is_same_v<I, dynamic_slice>) {
          detail::check_slice(ix.start, ix.size, r, extent);
          offset += ix.start * stride;
          ext[k] = ix.size;
          str[k++] = stride;
        } else {  // static_slice
          index_t const start = static_cast<index_t>(ix.start);
          detail::check_slice(start, I::size, r, extent);
          offset += start * stride;
          ext[k] = I::size;
          str[k++] = stride;
        }
      };
      (one(R, std::get<R>(idx)), ...);
      return Ref<T, new_shape, Space, new_strides>(data_ + offset, new_shape::from_all(ext),
                                                   new_strides::from_all(str));
    }
  }

  T* data_ = nullptr;
  [[no_unique_address]] Strides strides_{};
};

}  // namespace pallas
