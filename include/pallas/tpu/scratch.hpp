// SPDX-License-Identifier: Apache-2.0
#pragma once
// Scratch buffer types: `pltpu::VMEM<float, 128>` is `pltpu.VMEM((128,), jnp.float32)`,
// `pltpu::SMEM<std::int32_t, 8>` is `pltpu.SMEM((8,), jnp.int32)`. A launch allocates one
// per core from that core's arena; in checked mode the contents start poisoned (NaN for
// floats, the lowest value for integers, true for bool).

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include <pallas/config.hpp>
#include <pallas/dtype.hpp>
#include <pallas/memory_space.hpp>
#include <pallas/ref.hpp>
#include <pallas/shape.hpp>
#include <pallas/detail/runtime/core.hpp>
#include <pallas/detail/runtime/launch.hpp>
#include <pallas/detail/runtime/uninitialized.hpp>

namespace pallas::detail {

template <class T, memory_space Space, index_t... Dims>
struct buffer_type {
  static_assert(Dtype<T>, "pallas::scratch: the element type must be a pallas dtype");
  static_assert(((Dims != dyn) && ...), "pallas::scratch: scratch shapes must be static");
  static_assert(((Dims > 0) && ...), "pallas::scratch: every scratch extent must be > 0");

  using dtype = T;
  using shape_type = shape<Dims...>;
  using ref_type = Ref<T, shape_type, Space>;
  static constexpr memory_space space = Space;
  static constexpr std::int64_t bytes = static_cast<std::int64_t>(sizeof(T)) * (index_t{1} * ... * Dims);
  static constexpr std::int64_t vmem_bytes = Space == memory_space::vmem ? bytes : 0;
  static constexpr std::int64_t smem_bytes = Space == memory_space::smem ? bytes : 0;

  /// A fresh buffer in the calling core's memory.
  static ref_type allocate(core_state& core) {
    auto& arena = Space == memory_space::vmem ? core.vmem : core.smem;
    T* p = reinterpret_cast<T*>(arena.allocate(bytes, "a scratch buffer"));
    T value{};
    if (!uninitialized_fill(core.launch->conventions.uninitialized, value)) value = T{};
    std::fill_n(p, bytes / static_cast<std::int64_t>(sizeof(T)), value);
    return ref_type(p, shape_type{});
  }
};

}  // namespace pallas::detail

namespace pallas::tpu {

/// A VMEM scratch buffer of static shape.
template <class T, index_t... Dims>
struct VMEM : detail::buffer_type<T, memory_space::vmem, Dims...> {};

/// An SMEM scratch buffer of static shape (scalar loads and stores only).
template <class T, index_t... Dims>
struct SMEM : detail::buffer_type<T, memory_space::smem, Dims...> {};

}  // namespace pallas::tpu

namespace pallas {

/// A type that kernels can allocate per core: it has `allocate(core_state&)`.
template <class T>
concept ScratchType = requires(detail::core_state& core) {
  { T::allocate(core) };
  { T::vmem_bytes } -> std::convertible_to<std::int64_t>;
  { T::smem_bytes } -> std::convertible_to<std::int64_t>;
};

}  // namespace pallas
