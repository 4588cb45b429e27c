#pragma once
// pl::block<T, Shape>: an owning block value (a jnp array inside a kernel), 64-byte
// aligned, contiguous, row-major. `pl::eval(e)`, `e.eval()` and `pl::load(ref)` make one;
// it is an expression itself, so it combines with refs' blocks and other values:
//
//   auto m = pl::max(x[pl::ellipsis], pl::axis<1>, pl::keepdims);   // a block
//   pl::block<float, pl::shape<8, 128>> e = pl::exp(x[pl::ellipsis] - m);
//   o[pl::ellipsis] = e / pl::sum(e, pl::axis<1>, pl::keepdims);
//
// Also here: the rules of a store (`block = value`, `ref[...] = value`), shared with
// block_view, and how values become operands of expressions.

#include <array>
#include <cstddef>
#include <memory>
#include <ostream>
#include <type_traits>
#include <utility>

#include <pallas/config.hpp>
#include <pallas/dtype.hpp>
#include <pallas/error.hpp>
#include <pallas/expr/assign.hpp>
#include <pallas/expr/expression.hpp>
#include <pallas/memory_space.hpp>
#include <pallas/ref.hpp>
#include <pallas/shape.hpp>
#include <pallas/slice.hpp>

namespace pallas {

namespace detail {

template <class T>
struct is_block : std::false_type {};
template <class T, class S>
struct is_block<block<T, S>> : std::true_type {};

/// Whether D is a view type built on a leaf (a block_view), seen as its leaf.
template <class D>
concept leaf_derived = requires {
  typename D::value_type;
  typename D::shape_type;
} && std::derived_from<D, leaf<typename D::value_type, typename D::shape_type>> &&
                       !is_leaf<D>::value;

/// A value as an operand of an expression node: views and lvalue blocks become leaves
/// that read their memory; rvalue blocks and deferred products become leaves that own
/// their memory; strong scalars become rank-0 constants; nodes are kept by value.
template <class X>
auto as_operand(X&& x) {
  using D = std::remove_cvref_t<X>;
  if constexpr (StrongScalar<D>) {
    return scalar<D>(x);
  } else if constexpr (is_block<D>::value) {
    if constexpr (std::is_rvalue_reference_v<X&&> && !std::is_const_v<std::remove_reference_t<X>>)
      return std::move(x).into_leaf();
    else
      return x.view();
  } else if constexpr (std::derived_from<D, deferred_marker>) {
    return x.eval().into_leaf();
  } else if constexpr (leaf_derived<D>) {
    return leaf<typename D::value_type, typename D::shape_type>(x);
  } else {
    return D(std::forward<X>(x));
  }
}

template <class X>
using operand_t = decltype(as_operand(std::declval<X>()));

/// The dtype of an operand or scalar (a weak scalar on its own: its default dtype).
template <class D>
struct dtype_of {
  using type = default_dtype_t<D>;
};
template <class D>
  requires Operand<D>
struct dtype_of<D> {
  using type = typename D::value_type;
};
template <class D>
  requires StrongScalar<D>
struct dtype_of<D> {
  using type = D;
};
template <class X>
using dtype_of_t = typename dtype_of<std::remove_cvref_t<X>>::type;

// ---------------------------------------------------------------------------------------
// stores

template <class VS, class S>
struct same_shape;
template <index_t... A, index_t... B>
struct same_shape<extents<A...>, extents<B...>> {
  static constexpr bool value = std::is_same_v<extents<A...>, extents<B...>>;
  static constexpr bool check() {
    static_assert(std::is_same_v<extents<A...>, extents<B...>>,
                  "pallas::store: the stored value must have the block's shape (value shape, "
                  "block shape); stores do not broadcast");
    return value;
  }
};

/// `dst (shape S) AOp= value`, with the rules of a Pallas store: the value has the block's
/// shape (a scalar is broadcast), and `=` needs the block's dtype (a weak C++ scalar takes
/// it when it is of the same kind), `op=` must keep it.
template <class AOp, class S, class T, class V>
void store(T* dst, index_array<S::rank()> const& dstr, V&& value) {
  using D = std::remove_cvref_t<V>;
  constexpr bool is_set = std::is_same_v<AOp, set_assign>;
  if constexpr (WeakScalar<D>) {
    using W = weak_result_t<T, D>;
    static_assert(std::is_same_v<W, T> || !is_set,
                  "pallas::store: a floating-point scalar cannot be stored into an integer or "
                  "bool block (use pl::astype)");
    if constexpr (std::is_same_v<W, T> || !is_set) {
      using C = std::conditional_t<is_set, T, W>;
      static_assert(is_set || std::is_same_v<promote_t<T, C>, T>,
                    "pallas::store: `block op= value` must keep the block's dtype");
      if constexpr (is_set || std::is_same_v<promote_t<T, C>, T>)
        walk<AOp, S>(dst, dstr, constant<C, S>(from_scalar<C>(value)));
    }
  } else if constexpr (StrongScalar<D>) {
    static_assert(is_set ? std::is_same_v<D, T> : std::is_same_v<promote_t<T, D>, T>,
                  "pallas::store: the value's dtype must be the block's dtype (convert it with "
                  "pl::astype<T>(value))");
    if constexpr (is_set ? std::is_same_v<D, T> : std::is_same_v<promote_t<T, D>, T>)
      walk<AOp, S>(dst, dstr, constant<D, S>(value));
  } else {
    static_assert(Operand<D>, "pallas::store: the value must be a block expression or a scalar");
    if constexpr (Operand<D>) {
      using VS = typename D::shape_type;
      using VT = typename D::value_type;
      if constexpr (!same_shape<VS, S>::value) {
        same_shape<VS, S>::check();
      } else {
        static_assert(is_set ? std::is_same_v<VT, T> : std::is_same_v<promote_t<T, VT>, T>,
                      "pallas::store: the value's dtype must be the block's dtype (convert it "
                      "with pl::astype<T>(value)); `block op= value` must keep the block's "
                      "dtype");
        if constexpr (is_set ? std::is_same_v<VT, T> : std::is_same_v<promote_t<T, VT>, T>) {
          if constexpr (std::derived_from<D, deferred_marker>)
            value.template store_into<AOp, S>(dst, dstr);
          else
            assign_expression<AOp, S>(dst, dstr, as_operand(std::forward<V>(value)));
        }
      }
    }
  }
}

}  // namespace detail

/// An owning block value of static shape: what jnp arrays are inside a kernel.
template <class T, Extents Shape>
class block : public detail::expr_methods<block<T, Shape>> {
  static_assert(Dtype<T>, "pallas::block: the element type must be a pallas dtype");
  static_assert(Shape::is_static, "pallas::block: blocks must have a static shape");

 public:
  using value_type = T;
  using element_type = T;
  using shape_type = Shape;
  static constexpr std::size_t rank = Shape::rank();
  static constexpr bool flat_shape = true;

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

  block(block const& other) : data_(detail::allocate_block<T>(Shape::static_size())) {
    for (index_t i = 0; i < Shape::static_size(); ++i) data_[i] = other.data_[i];
  }
  block(block&&) noexcept = default;
  block& operator=(block const& other) {
    if (this != &other)
      for (index_t i = 0; i < Shape::static_size(); ++i) data_[i] = other.data_[i];
    return *this;
  }
  block& operator=(block&&) noexcept = default;
  ~block() = default;

  /// Stores a value (an expression of the same shape and dtype, or a scalar).
  template <class V>
    requires(Operand<V> || Scalar<V>) && (!std::is_same_v<std::remove_cvref_t<V>, block>)
  block& operator=(V&& v) {
    detail::store<detail::set_assign, Shape>(data(), strides(), std::forward<V>(v));
    return *this;
  }
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

  T* data() noexcept { return data_.get(); }
  T const* data() const noexcept { return data_.get(); }
  static constexpr Shape shape() noexcept { return Shape{}; }
  static constexpr index_t size() noexcept { return Shape::static_size(); }
  static constexpr index_t extent(std::size_t r) noexcept { return Shape::static_extent(r); }
  static constexpr detail::index_array<rank> strides() noexcept { return detail::row_major<Shape>(); }

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

  T* begin() noexcept { return data(); }
  T* end() noexcept { return data() + size(); }
  T const* begin() const noexcept { return data(); }
  T const* end() const noexcept { return data() + size(); }

  /// Element (i, j, ...); bounds are checked in checked mode.
  template <Integer... I>
  T& operator()(I const&... idx) noexcept(!checked_mode) {
    return data_[offset(idx...)];
  }
  template <Integer... I>
  T const& operator()(I const&... idx) const noexcept(!checked_mode) {
    return data_[offset(idx...)];
  }

  /// The only element of a rank-0 block (jnp `x.item()`); rank-0 blocks also convert to T.
  T item() const noexcept
    requires(rank == 0)
  {
    return data_[0];
  }
  operator T() const noexcept  // NOLINT: implicit, so that `float s = pl::sum(x);` works
    requires(rank == 0)
  {
    return data_[0];
  }

  // ---- expression interface
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
    static_assert(sizeof...(I) == rank, "pallas::block: element access needs one index per dimension");
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

#include <pallas/block_view.hpp>  // block::operator[] returns a block_view
