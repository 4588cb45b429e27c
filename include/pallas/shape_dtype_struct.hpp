// SPDX-License-Identifier: Apache-2.0
#pragma once
// pl::ShapeDtypeStruct<T, Dims...>: the shape and dtype of an output, without storage
// (`jax.ShapeDtypeStruct`). `pl::like(x)` is `jax.ShapeDtypeStruct.like(x)`.

#include <type_traits>

#include <pallas/array.hpp>
#include <pallas/shape.hpp>

namespace pallas {

/// `jax.ShapeDtypeStruct(shape, dtype)`: the shape and dtype of an output, without data:
/// `pl::ShapeDtypeStruct<float, 128, 128>` (`pl::dyn` extents given at construction).
template <class T, index_t... Dims>
struct ShapeDtypeStruct {
  using dtype = T;  ///< the element type
  using shape_type = pallas::shape<Dims...>;  ///< the extents
  using array_type = Array<T, Dims...>;  ///< the Array it describes

  /// The run-time extents, if any.
  shape_type shape{};

  /// Static shapes.
  constexpr ShapeDtypeStruct() noexcept
    requires shape_type::is_static
  {}
  /// With the given shape.
  constexpr explicit ShapeDtypeStruct(shape_type s) : shape(s) {}
  /// With the run-time extents, in order.
  template <DynamicInt... I>
    requires(sizeof...(I) == shape_type::rank_dynamic() && sizeof...(I) > 0)
  constexpr explicit ShapeDtypeStruct(I... dynamic_extents) : shape(dynamic_extents...) {}

  /// A zeroed array of this shape and dtype.
  array_type make_array() const { return array_type(shape); }

  /// An array of this shape and dtype whose contents are unspecified.
  array_type make_uninitialized_array() const { return array_type(uninitialized, shape); }
};

/// The ShapeDtypeStruct of an array: `jax.ShapeDtypeStruct.like(x)`.
template <class T, index_t... Dims>
constexpr ShapeDtypeStruct<T, Dims...> like(Array<T, Dims...> const& x) {
  return ShapeDtypeStruct<T, Dims...>(x.shape());
}

namespace detail {
template <class T>
struct is_shape_dtype_struct : std::false_type {};
template <class T, index_t... D>
struct is_shape_dtype_struct<ShapeDtypeStruct<T, D...>> : std::true_type {};
}  // namespace detail

template <class T>
concept ShapeDtype = detail::is_shape_dtype_struct<std::remove_cvref_t<T>>::value;

}  // namespace pallas
