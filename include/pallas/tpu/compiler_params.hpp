// SPDX-License-Identifier: Apache-2.0
#pragma once
// pallas_call's TPU options: `pltpu.CompilerParams(dimension_semantics=...,
// vmem_limit_bytes=...)`, `PrefetchScalarGridSpec(num_scalar_prefetch=...)`, and the core
// count (not a Pallas option: Pallas uses the device's).

#include <cstdint>
#include <type_traits>

namespace pallas {

namespace tpu {

/// `PrefetchScalarGridSpec(num_scalar_prefetch=N, ...)`: the first N call arguments go to
/// SMEM before the grid runs; index maps and the kernel receive them.
template <int N>
struct num_scalar_prefetch_t {
  static_assert(N >= 0, "pallas::pallas_call: num_scalar_prefetch must be >= 0");
  static constexpr int value = N;  ///< the number of scalar-prefetch arguments
};
/// The option value: `pltpu::num_scalar_prefetch<1>`.
template <int N>
inline constexpr num_scalar_prefetch_t<N> num_scalar_prefetch{};

/// `vmem_limit_bytes=N` of CompilerParams: the VMEM budget of the call's buffers and
/// scratch, checked at compile time.
template <std::int64_t N>
struct vmem_limit_bytes_t {
  static constexpr std::int64_t value = N;  ///< the budget in bytes
};
/// The option value: `pltpu::vmem_limit_bytes<32 << 20>`.
template <std::int64_t N>
inline constexpr vmem_limit_bytes_t<N> vmem_limit_bytes{};

/// The TensorCores the call runs on (not a Pallas option: Pallas uses the device's). The
/// chip's count by default (v5p: 2).
template <int N>
struct num_cores_t {
  static_assert(N >= 1, "pallas::pallas_call: num_cores must be >= 1");
  static constexpr int value = N;  ///< the number of cores
};
/// The option value: `pltpu::num_cores<2>`.
template <int N>
inline constexpr num_cores_t<N> num_cores{};

/// `pltpu.CompilerParams(dimension_semantics=..., vmem_limit_bytes=...)`.
/// Its parameters are stateless: the type holds them all.
template <class... P>
struct compiler_params_t {};
/// `compiler_params=pltpu.CompilerParams(...)`: `pltpu::compiler_params(pltpu::dimension_semantics<...>, pltpu::vmem_limit_bytes<N>)`.
template <class... P>
constexpr compiler_params_t<P...> compiler_params(P const&...) {
  return {};
}

}  // namespace tpu

namespace detail {

template <class T>
struct is_prefetch_option : std::false_type {};
template <int N>
struct is_prefetch_option<tpu::num_scalar_prefetch_t<N>> : std::true_type {};
template <class T>
struct is_vmem_limit_option : std::false_type {};
template <std::int64_t N>
struct is_vmem_limit_option<tpu::vmem_limit_bytes_t<N>> : std::true_type {};
template <class T>
struct is_num_cores_option : std::false_type {};
template <int N>
struct is_num_cores_option<tpu::num_cores_t<N>> : std::true_type {};

}  // namespace detail

}  // namespace pallas
