// SPDX-License-Identifier: Apache-2.0
#pragma once
// pl::Array<T, Dims...>: an owning, 64-byte aligned array in HBM (host memory). Kernels
// take Arrays and return Arrays; inside a kernel they are seen through HBM refs.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <vector>
#include <new>
#include <ostream>
#include <span>
#include <type_traits>
#include <unordered_map>
#include <utility>

#include <pallas/config.hpp>
#include <pallas/detail/buffer_pool.hpp>
#include <pallas/detail/numbers_in_messages.hpp>
#include <pallas/error.hpp>
#include <pallas/memory_space.hpp>
#include <pallas/ref.hpp>
#include <pallas/shape.hpp>

namespace pallas {

namespace detail {

struct aligned_delete {
  std::size_t bytes = 0;
  void operator()(void* p) const noexcept { buffer_pool::instance().give(p, bytes); }
};

template <class T>
using buffer = std::unique_ptr<T[], aligned_delete>;

// Aligned storage for n elements of T, zeroed or left as it is.
template <class T>
buffer<T> allocate_buffer(index_t n, bool zero) {
  static_assert(std::is_trivially_copyable_v<T>, "pallas::Array: elements must be trivially copyable");
  std::size_t const bytes = std::max<std::size_t>(1, static_cast<std::size_t>(n) * sizeof(T));
  void* p = buffer_pool::instance().take(bytes);
  if (zero) std::memset(p, 0, bytes);
  return buffer<T>(static_cast<T*>(p), aligned_delete{bytes});
}

}  // namespace detail

/// Tag for an Array whose contents start unspecified: `pl::Array<float, 8>(pl::uninitialized)`.
struct uninitialized_t {
  explicit constexpr uninitialized_t() = default;
};
/// The tag value: `pl::Array<float, 8>(pl::uninitialized)`.
inline constexpr uninitialized_t uninitialized{};

/// An array in HBM (a `jax.Array` on the device): owns aligned memory holding `T`
/// elements in row-major order, with static extents `Dims...` (`pl::dyn` marks one known
/// at run time). What kernels and `pallas_call` take and return; inside a kernel it is
/// seen through a `Ref` in `memory_space::hbm`. Copies are deep, moves are cheap.
/// `x.shape` gives the extents (`x.shape[0]` is a constant expression for static shapes).
template <class T, index_t... Dims>
class Array : public detail::shape_member<shape<Dims...>> {
  using shape_base = detail::shape_member<shape<Dims...>>;

 public:
  using value_type = T;                                ///< the element type
  using shape_type = shape<Dims...>;                   ///< the extents, static and dynamic
  using ref_type = Ref<T, shape_type, memory_space::hbm>;  ///< how kernels see their outputs
  /// How kernels see their inputs: elements read-only (pallas::kernel's rule).
  using read_only_ref_type = Ref<T const, shape_type, memory_space::hbm>;

  /// The number of dimensions.
  static constexpr std::size_t rank() noexcept { return sizeof...(Dims); }

  /// All zeros (static shapes).
  Array()
    requires shape_type::is_static
      : Array(shape_type{}) {}

  /// All zeros, with the given shape.
  explicit Array(shape_type shape) : shape_base(shape), data_(detail::allocate_buffer<T>(shape.size(), true)) {}

  /// Contents unspecified (what kernels write their outputs into).
  Array(uninitialized_t, shape_type shape) : shape_base(shape), data_(detail::allocate_buffer<T>(shape.size(), false)) {}
  /// Contents unspecified (static shapes).
  explicit Array(uninitialized_t)
    requires shape_type::is_static
      : Array(uninitialized, shape_type{}) {}

  /// All zeros, with the run-time extents given in order: `Array<float, dyn, 128>(rows)`.
  template <DynamicInt... I>
    requires(sizeof...(I) == shape_type::rank_dynamic() && sizeof...(I) > 0)
  explicit Array(I... dynamic_extents) : Array(shape_type(dynamic_extents...)) {}

  /// The elements in row-major order: `Array<float, 2, 2>{1, 2, 3, 4}`.
  Array(std::initializer_list<T> values)
    requires shape_type::is_static
      : Array() {
    assign_from(std::span<T const>(values.begin(), values.size()));
  }

  /// Every element `value`.
  template <DynamicInt... I>
  static Array full(T const& value, I... dynamic_extents) {
    Array a(shape_type(dynamic_extents...));
    std::fill_n(a.data(), a.size(), value);
    return a;
  }

  /// The elements of `values` in row-major order; the sizes must agree.
  template <DynamicInt... I>
  static Array from(std::span<T const> values, I... dynamic_extents) {
    Array a(shape_type(dynamic_extents...));
    a.assign_from(values);
    return a;
  }

  /// Element (i, j, ...) is `f(i, j, ...)`.
  template <class F, DynamicInt... I>
  static Array generate(F&& f, I... dynamic_extents) {
    Array a(shape_type(dynamic_extents...));
    std::array<index_t, rank()> ix{};
    for (index_t flat = 0; flat < a.size(); ++flat) {
      a.data_[flat] = std::apply([&](auto... i) { return static_cast<T>(f(i...)); }, ix);
      for (std::size_t r = rank(); r-- > 0;) {  // advance the multi-index, last fastest
        if (++ix[r] < a.shape_.extent(r)) break;
        ix[r] = 0;
      }
    }
    return a;
  }

  /// A deep copy: new memory holding the same elements.
  Array(Array const& other) : shape_base(other.shape_), data_(detail::allocate_buffer<T>(other.size(), false)) {
    std::copy_n(other.data(), other.size(), data());
  }
  /// Deep copy assignment.
  Array& operator=(Array const& other) {
    if (this != &other) *this = Array(other);
    return *this;
  }
  Array(Array&&) noexcept = default;             ///< Takes the memory; `other` is left empty.
  Array& operator=(Array&&) noexcept = default;  ///< Takes the memory; `other` is left empty.
  ~Array() = default;

  // `shape`: `x.shape` (static constexpr: `pl::grid<x.shape[0] / 128>`; `x.shape()` too)
  // for static shapes, the function `x.shape()` otherwise (detail::shape_member).
  /// The extent of dimension `r`.
  index_t extent(std::size_t r) const noexcept { return this->shape_.extent(r); }
  /// The number of elements.
  index_t size() const noexcept { return this->shape_.size(); }
  /// @name Elements in row-major order
  /// @{

  /// The first element; the array's `size()` elements follow contiguously, last index
  /// fastest, so `std::vector<float>(x.begin(), x.end())` and range-for work.
  T* data() noexcept { return data_.get(); }
  T const* data() const noexcept { return data_.get(); }
  T* begin() noexcept { return data(); }
  T* end() noexcept { return data() + size(); }
  T const* begin() const noexcept { return data(); }
  T const* end() const noexcept { return data() + size(); }
  /// @}

  /// The array as an HBM ref (how kernels see their outputs).
  ref_type ref() const noexcept { return ref_type(data_.get(), this->shape_); }
  /// The array as a read-only HBM ref (how kernels see their inputs).
  read_only_ref_type read_only_ref() const noexcept { return read_only_ref_type(data_.get(), this->shape_); }

  /// @name Element access
  /// @{

  /// Element (i, j, ...); throws pallas::index_error when out of bounds.
  template <Integer... I>
  T& operator()(I... idx) {
    return data_[offset_of(idx...)];
  }
  template <Integer... I>
  T const& operator()(I... idx) const {
    return data_[offset_of(idx...)];
  }
  /// @}

  /// Same shape and every element equal.
  friend bool operator==(Array const& a, Array const& b) {
    return a.shape_ == b.shape_ && std::equal(a.begin(), a.end(), b.begin());
  }

  /// Prints like numpy: nested rows, summarized with "..." past 1000 elements.
  friend std::ostream& operator<<(std::ostream& out, Array const& a) {
    bool const summarize = a.size() > 1000;
    print_dim(out, a, 0, 0, summarize);
    return out;
  }

 private:
  template <class... I>
  index_t offset_of(I... idx) const {
    static_assert(detail::counts_match<sizeof...(I), rank()>::value,
                  "pallas::Array: element access needs one index per dimension");
    if constexpr (sizeof...(I) != rank()) {
      return 0;  // reported above
    } else {
      std::array<index_t, rank()> const ix{static_cast<index_t>(idx)...};
      index_t offset = 0;
      for (std::size_t r = 0; r < rank(); ++r) {
        if (ix[r] < 0 || ix[r] >= this->shape_.extent(r))
          detail::fail<index_error>("pallas::Array: index ", ix[r], " is out of bounds for dimension ",
                                    r, " of extent ", this->shape_.extent(r));
        offset = offset * this->shape_.extent(r) + ix[r];
      }
      return offset;
    }
  }

  void assign_from(std::span<T const> values) {
    if (static_cast<index_t>(values.size()) != size())
      detail::fail<shape_error>("pallas::Array: ", values.size(), " values given for an array of shape ",
                                this->shape_, " (", size(), " elements)");
    std::copy(values.begin(), values.end(), data());
  }

  static void print_value(std::ostream& out, T const& v) {
    if constexpr (std::is_same_v<T, bool>)
      out << (v ? "True" : "False");
    else if constexpr (sizeof(T) == 1 && std::is_integral_v<T>)
      out << static_cast<int>(v);
    else
      out << v;
  }

  static void print_dim(std::ostream& out, Array const& a, std::size_t dim, index_t base, bool summarize) {
    if constexpr (rank() == 0) {
      print_value(out, a.data_[0]);
    } else {
      index_t const n = a.shape_.extent(dim);
      index_t inner = 1;
      for (std::size_t r = dim + 1; r < rank(); ++r) inner *= a.shape_.extent(r);
      out << '[';
      for (index_t i = 0; i < n; ++i) {
        if (summarize && n > 6 && i == 3) {
          // numpy: the "..." row takes the separator of its level (a blank line per level
          // below the innermost two).
          if (dim + 1 == rank())
            out << " ...";
          else
            out << std::string(rank() - dim - 1, '\n') << std::string(dim + 1, ' ') << "...";
          i = n - 3;
        }
        if (i > 0) {
          if (dim + 1 == rank())
            out << ' ';
          else
            out << std::string(rank() - dim - 1, '\n') << std::string(dim + 1, ' ');
        }
        if (dim + 1 == rank())
          print_value(out, a.data_[base + i]);
        else
          print_dim(out, a, dim + 1, base + i * inner, summarize);
      }
      out << ']';
    }
  }

  detail::buffer<T> data_;
};

/// `numpy.allclose`: same shape and |a - b| <= atol + rtol * |b| everywhere; NaNs compare
/// equal only when `equal_nan`.
template <class T, index_t... Da, index_t... Db>
bool allclose(Array<T, Da...> const& a, Array<T, Db...> const& b, double rtol = 1e-5,
              double atol = 1e-8, bool equal_nan = false) {
  if (!(a.shape() == b.shape())) return false;
  for (index_t k = 0; k < a.size(); ++k) {
    double const x = static_cast<double>(a.data()[k]);
    double const y = static_cast<double>(b.data()[k]);
    if (std::isnan(x) || std::isnan(y)) {
      if (!(equal_nan && std::isnan(x) && std::isnan(y))) return false;
      continue;
    }
    if (x == y) continue;  // also equal infinities
    if (std::isinf(x) || std::isinf(y)) return false;  // inf - (-inf) <= rtol * inf holds
    if (!(std::fabs(x - y) <= atol + rtol * std::fabs(y))) return false;
  }
  return true;
}

}  // namespace pallas
