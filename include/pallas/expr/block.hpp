// SPDX-License-Identifier: Apache-2.0
#pragma once
// pl::block<T, Shape>: an owning block value (a jnp array inside a kernel), 64-byte
// aligned, contiguous, row-major. `pl::eval(e)`, `e.eval()` and `pl::load(ref)` make one;
// it is an expression itself, so it combines with refs' blocks and other values:
//
//   auto m = pl::max(x[pl::ellipsis], pl::axis<1>, pl::keepdims);   // a block
//   pl::block<float, pl::shape<8, 128>> e = pl::exp(x[pl::ellipsis] - m);
//   o[pl::ellipsis] = e / pl::sum(e, pl::axis<1>, pl::keepdims);
//
// The rules of its stores, and how values become operands, are in store.hpp.

#include <array>
#include <cstddef>
#include <memory>
#include <ostream>
#include <type_traits>
#include <utility>

#include <pallas/block_view.hpp>
#include <pallas/config.hpp>
#include <pallas/detail/numbers_in_messages.hpp>
#include <pallas/dtype.hpp>
#include <pallas/error.hpp>
#include <pallas/expr/assign.hpp>
#include <pallas/expr/broadcast.hpp>
#include <pallas/expr/expression.hpp>
#include <pallas/expr/store.hpp>
#include <pallas/memory_space.hpp>
#include <pallas/ref.hpp>
#include <pallas/shape.hpp>
#include <pallas/slice.hpp>

namespace pallas {


/// An owning block value of static shape: what jnp arrays are inside a kernel.
template <class T, Extents Shape>
class block : public detail::expr_methods<block<T, Shape>> {
  static_assert(Dtype<T>, "pallas::block: the element type must be a pallas dtype");
  static_assert(Shape::is_static, "pallas::block: blocks must have a static shape");

 public:
  using value_type = T;                               ///< the element type
  using element_type = T;                             ///< the element type, as std::span names it
  using shape_type = Shape;                           ///< the (static) extents
  static constexpr std::size_t rank = Shape::rank();  ///< the number of dimensions
  /// @cond PALLAS_INTERNAL
  static constexpr bool flat_shape = true;
  /// @endcond

  /// All zeros.
  block() : data_(detail::allocate_block<T>(Shape::static_size())) {
    for (index_t i = 0; i < Shape::static_size(); ++i) data_[i] = T{};
  }

  /// The value of an expression (same shape and dtype), computed now.
  template <Operand E>
    requires(!std::is_same_v<std::remove_cvref_t<E>, block>)
  block(E&& e)  // NOLINT: implicit, like a jnp array from a computation
      : data_(detail::allocate_block<T>(Shape::static_size())) {
    detail::store<detail::set_assign, Shape>(data_.get(), strides(), std::forward<E>(e));
  }

  /// A copy of the elements (new memory).
  block(block const& other) : data_(detail::allocate_block<T>(Shape::static_size())) {
    for (index_t i = 0; i < Shape::static_size(); ++i) data_[i] = other.data_[i];
  }
  block(block&&) noexcept = default;  ///< Takes the memory; `other` is left empty.
  /// Copies the elements.
  block& operator=(block const& other) {
    if (this != &other)
      for (index_t i = 0; i < Shape::static_size(); ++i) data_[i] = other.data_[i];
    return *this;
  }
  block& operator=(block&&) noexcept = default;  ///< Takes the memory.
  ~block() = default;

  /// Stores a value (an expression of the same shape and dtype, or a scalar).
  template <class V>
    requires(Operand<V> || Scalar<V>) && (!std::is_same_v<std::remove_cvref_t<V>, block>)
  block& operator=(V&& v) {
    detail::store<detail::set_assign, Shape>(data(), strides(), std::forward<V>(v));
    return *this;
  }
  /// @name Compound assignment
  /// @{

  /// `b += e`: element-wise with an expression of the same shape (or one that broadcasts
  /// to it) or a scalar; the result keeps the block's dtype.
  template <class V>
    requires Operand<V> || Scalar<V>
  block& operator+=(V&& v) {
    detail::store<detail::add_assign, Shape>(data(), strides(), std::forward<V>(v));
    return *this;
  }
  template <class V>
    requires Operand<V> || Scalar<V>
  block& operator-=(V&& v) {
    detail::store<detail::sub_assign, Shape>(data(), strides(), std::forward<V>(v));
    return *this;
  }
  template <class V>
    requires Operand<V> || Scalar<V>
  block& operator*=(V&& v) {
    detail::store<detail::compound_assign<detail::mul_op>, Shape>(data(), strides(),
                                                                   std::forward<V>(v));
    return *this;
  }
  template <class V>
    requires Operand<V> || Scalar<V>
  block& operator/=(V&& v) {
    detail::store<detail::compound_assign<detail::div_op>, Shape>(data(), strides(),
                                                                   std::forward<V>(v));
    return *this;
  }
  /// @}

  /// @name Elements in row-major order
  /// @{

  /// The first element; `size()` elements follow contiguously (range-for works too).
  T* data() noexcept { return data_.get(); }
  T const* data() const noexcept { return data_.get(); }
  T* begin() noexcept { return data(); }
  T* end() noexcept { return data() + size(); }
  T const* begin() const noexcept { return data(); }
  T const* end() const noexcept { return data() + size(); }
  /// @}
  /// `b.shape[0]` (a constant expression), `b.shape()`.
  static constexpr detail::shape_constant<Shape> shape{};
  /// The number of elements.
  static constexpr index_t size() noexcept { return Shape::static_size(); }
  /// The extent of dimension `r`.
  static constexpr index_t extent(std::size_t r) noexcept { return Shape::static_extent(r); }
  /// The row-major strides, in elements.
  static constexpr detail::index_array<rank> strides() noexcept { return detail::row_major<Shape>(); }

  /// @name Views
  /// @{

  /// The block as a VMEM ref: `b.ref().at(...)` views part of it.
  Ref<T, Shape, memory_space::vmem> ref() noexcept { return {data(), Shape{}}; }
  Ref<T const, Shape, memory_space::vmem> ref() const noexcept { return {data(), Shape{}}; }
  /// `b[pl::ellipsis]`: the block as a block view, like a ref's.
  auto operator[](ellipsis_t) noexcept { return ref()[ellipsis]; }
  auto operator[](ellipsis_t) const noexcept { return ref()[ellipsis]; }
  /// `b.at(...)`: a VMEM ref of part of the block (Ref::at's indexers).
  template <Indexer... I>
  auto at(I const&... indexers) {
    return ref().at(indexers...);
  }
  template <Indexer... I>
  auto at(I const&... indexers) const {
    return ref().at(indexers...);
  }
  /// @}

  /// @name Element access
  /// @{

  /// Element (i, j, ...); bounds are checked in checked mode.
  template <Integer... I>
  T& operator()(I const&... idx) noexcept(!checked_mode) {
    return data_[offset(idx...)];
  }
  template <Integer... I>
  T const& operator()(I const&... idx) const noexcept(!checked_mode) {
    return data_[offset(idx...)];
  }
  /// @}

  /// The only element of a rank-0 block (jnp `x.item()`); rank-0 blocks also convert to T.
  T item() const noexcept
    requires(rank == 0)
  {
    return data_[0];
  }
  /// The only element of a rank-0 block: `float s = pl::sum(x);`.
  operator T() const noexcept  // NOLINT: implicit, so that `float s = pl::sum(x);` works
    requires(rank == 0)
  {
    return data_[0];
  }

  // ---- expression interface
  /// @cond PALLAS_INTERNAL
  detail::leaf<T, Shape> view() const& noexcept { return {data_.get(), strides()}; }
  /// A leaf that owns this block's memory (this block is left empty).
  detail::leaf<T, Shape> into_leaf() && {
    T const* p = data_.get();
    std::shared_ptr<void const> owner(std::move(data_));
    return {p, strides(), std::move(owner)};
  }
  constexpr bool contiguous() const noexcept { return true; }
  constexpr bool unit_rows() const noexcept { return true; }
  template <bool Unit>
  auto row(detail::index_array<rank> const& idx) const noexcept {
    return view().template row<true>(idx);
  }
  bool aliases(detail::memory_region const& m, bool remapped) const noexcept {
    return view().aliases(m, remapped);
  }
  /// @endcond

  /// Prints like numpy: nested brackets, row by row.
  friend std::ostream& operator<<(std::ostream& out, block const& b) {
    if constexpr (rank == 0) {
      return out << print_value(b.data_[0]);
    } else {
      detail::index_array<rank> idx{};
      for (index_t i = 0; i < size(); ++i) {
        std::size_t opened = 0;
        for (std::size_t r = rank; r-- > 0 && idx[r] == 0;) ++opened;
        if (i == 0) {
          for (std::size_t k = 0; k < opened; ++k) out << '[';
        } else {
          for (std::size_t k = 0; k < opened; ++k) out << ']';
          out << (opened ? ",\n" : ", ");
          for (std::size_t k = 0; k < rank - opened && opened; ++k) out << ' ';
          for (std::size_t k = 0; k < opened; ++k) out << '[';
        }
        out << print_value(b.data_[i]);
        for (std::size_t r = rank; r-- > 0;) {
          if (++idx[r] < Shape::static_extent(r)) break;
          idx[r] = 0;
        }
      }
      for (std::size_t k = 0; k < rank; ++k) out << ']';
      return out;
    }
  }

 private:
  template <class U>
  static auto print_value(U v) {
    if constexpr (std::is_same_v<U, bool>)
      return v ? "True" : "False";
    else if constexpr (sizeof(U) == 1)
      return static_cast<int>(v);
    else if constexpr (detail::is_half_v<U>)
      return static_cast<float>(v);
    else
      return v;
  }

  template <class... I>
  static index_t offset(I const&... idx) noexcept(!checked_mode) {
    static_assert(detail::counts_match<sizeof...(I), rank>::value,
                  "pallas::block: element access needs one index per dimension");
    if constexpr (sizeof...(I) != rank) {
      return 0;
    } else {
      std::array<index_t, rank> const ix{static_cast<index_t>(idx)...};
      constexpr auto s = detail::row_major<Shape>();
      index_t off = 0;
      for (std::size_t r = 0; r < rank; ++r) {
        if constexpr (checked_mode)
          if (ix[r] < 0 || ix[r] >= Shape::static_extent(r))
            detail::fail<index_error>("pallas::block: index ", ix[r], " is out of bounds for dimension ",
                                      r, " of extent ", Shape::static_extent(r));
        off += ix[r] * s[r];
      }
      return off;
    }
  }

  detail::block_storage<T> data_;
};

/// The value of an expression, computed now, as an owning pl::block (`jax.block_until_ready`
/// of a value; Eigen's `.eval()`). A scalar gives a rank-0 block.
template <class E>
  requires Operand<E> || Scalar<E>
auto eval(E&& e) {
  using D = std::remove_cvref_t<E>;
  if constexpr (WeakScalar<D>) {
    using T = detail::default_dtype_t<D>;
    return block<T, shape<>>(detail::scalar<T>(detail::from_scalar<T>(e)));
  } else if constexpr (StrongScalar<D>) {
    return block<D, shape<>>(detail::scalar<D>(e));
  } else if constexpr (detail::is_block<D>::value) {
    return D(std::forward<E>(e));
  } else {
    return block<typename D::value_type, typename D::shape_type>(std::forward<E>(e));
  }
}

template <class D>
auto detail::expr_methods<D>::eval() const {
  return block<typename D::value_type, typename D::shape_type>(self());
}

}  // namespace pallas

