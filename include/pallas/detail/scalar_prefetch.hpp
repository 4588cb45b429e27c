// SPDX-License-Identifier: Apache-2.0
#pragma once
// pallas_call's scalar-prefetch arguments: the first num_scalar_prefetch call arguments are
// copied into each core's SMEM before the grid runs; index maps and the kernel get SMEM refs.

#include <algorithm>
#include <array>
#include <cstddef>
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

/// The block rank an in_spec asks of its input, or -1 when it takes any (a whole-array or
/// ANY/HBM spec).
template <class Spec>
constexpr int spec_block_rank() {
  if constexpr (requires { Spec::rank; })
    return Spec::raw ? -1 : static_cast<int>(Spec::rank);
  else
    return -1;
}

/// Where the NumPrefetch scalar-prefetch arrays seem to be when they are not first: the
/// argument P > 0 from which taking them makes every in_spec's block rank fit its input,
/// when with them first some does not; -1 otherwise (no in_specs, or no such P).
template <class InSpecs, std::size_t NumPrefetch, class... Args>
constexpr int misplaced_prefetch() {
  constexpr std::size_t num_inputs = std::tuple_size_v<InSpecs>;
  if constexpr (num_inputs == 0 || NumPrefetch == 0 || sizeof...(Args) != num_inputs + NumPrefetch) {
    return -1;
  } else {
    constexpr std::array<int, sizeof...(Args)> arg_ranks{static_cast<int>(std::remove_cvref_t<Args>::rank())...};
    constexpr auto spec_ranks = []<std::size_t... K>(std::index_sequence<K...>) {
      return std::array<int, num_inputs>{spec_block_rank<std::tuple_element_t<K, InSpecs>>()...};
    }(std::make_index_sequence<num_inputs>{});
    auto const fits = [&](std::size_t p) {
      for (std::size_t k = 0; k < num_inputs; ++k)
        if (spec_ranks[k] >= 0 && spec_ranks[k] != arg_ranks[k < p ? k : k + NumPrefetch]) return false;
      return true;
    };
    if (fits(0)) return -1;
    for (std::size_t p = 1; p <= num_inputs; ++p)
      if (fits(p)) return static_cast<int>(p);
    return -1;
  }
}

/// Instantiated by a pallas_call: fails, with the prefetch count and the argument they
/// seem to start at as its template arguments, when misplaced_prefetch found them there.
template <int NumPrefetch, int FoundAt, bool First = (FoundAt < 0)>
struct scalar_prefetch_first {
  static_assert(First,
                "pallas::pallas_call: pass the NumPrefetch scalar-prefetch arrays first, then the inputs (the "
                "in_specs' block ranks fit the inputs only with the prefetch arrays at argument FoundAt)");
};

}  // namespace pallas::detail
