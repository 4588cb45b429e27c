// SPDX-License-Identifier: Apache-2.0
#pragma once
// pallas_call's scalar-prefetch arguments: the first num_scalar_prefetch call arguments are
// copied into each core's SMEM before the grid runs; index maps and the kernel get SMEM refs.

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include <pallas/array.hpp>
#include <pallas/detail/runtime/core.hpp>
#include <pallas/detail/runtime/cost_counters.hpp>
#include <pallas/memory_space.hpp>
#include <pallas/ref.hpp>
#include <pallas/shape.hpp>

namespace pallas::detail {

/// Copies a scalar-prefetch array into the core's SMEM.
template <class T, index_t... D>
auto to_smem(core_state& core, Array<T, D...> const& a) {
  using ref_t = Ref<T, shape<D...>, memory_space::smem>;
  auto const bytes = a.size() * static_cast<std::int64_t>(sizeof(T));
  T* p = reinterpret_cast<T*>(core.smem.allocate(bytes, "a scalar-prefetch argument"));
  std::copy(a.begin(), a.end(), p);
  count_copy(traffic_kind::scalar_prefetch, memory_space::hbm, memory_space::smem, bytes);
  return ref_t(p, a.shape());
}

template <class S>
struct smem_ref_of;
template <class T, index_t... D>
struct smem_ref_of<Array<T, D...>> {
  using type = Ref<T, shape<D...>, memory_space::smem>;
};

/// The SMEM refs of a tuple of scalar-prefetch arrays (a type only: refs with run-time
/// extents have no default value).
template <class Tuple>
struct smem_refs_of;
template <class... A>
struct smem_refs_of<std::tuple<A...>> {
  using type = std::tuple<typename smem_ref_of<std::remove_cvref_t<A>>::type...>;
};

/// A call's arguments: the first NumPrefetch go to SMEM, the rest are inputs.
template <int NumPrefetch, class... Args>
struct call_args {
  template <class P, class I>
  struct split;
  template <std::size_t... P, std::size_t... I>
  struct split<std::index_sequence<P...>, std::index_sequence<I...>> {
    using inputs = std::tuple<std::remove_cvref_t<std::tuple_element_t<NumPrefetch + I, std::tuple<Args...>>>...>;
    using prefetch_refs =
        std::tuple<typename smem_ref_of<std::remove_cvref_t<std::tuple_element_t<P, std::tuple<Args...>>>>::type...>;
  };
  using parts = split<std::make_index_sequence<NumPrefetch>, std::make_index_sequence<sizeof...(Args) - NumPrefetch>>;
  using inputs = typename parts::inputs;
  using prefetch_refs = typename parts::prefetch_refs;
};

}  // namespace pallas::detail
