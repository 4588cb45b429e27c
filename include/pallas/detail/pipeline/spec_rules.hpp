// SPDX-License-Identifier: Apache-2.0
#pragma once
// The rules on one operand that need no plan, checked at compile time: the block's rank,
// the index map's arity and result, the TPU tiling rule.
// Each returns whether it holds, so that later checks are skipped after a failure (one
// mistake, one error).

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <pallas/block_spec.hpp>
#include <pallas/memory_space.hpp>
#include <pallas/ref.hpp>
#include <pallas/shape.hpp>

#ifndef PALLAS_TPU_TILING_CHECK
#  define PALLAS_TPU_TILING_CHECK 1
#endif

namespace pallas::detail {

/// Which front end a pipeline runs under; messages name it.
enum class caller : unsigned char { emit_pipeline, pallas_call };

constexpr char const* caller_name(caller who) noexcept {
  return who == caller::pallas_call ? "pallas_call" : "emit_pipeline";
}


template <class Spec, std::size_t GridRank, class Extra>
constexpr bool check_index_map_arity() {
  namespace mp = boost::mp11;
  using map = typename Spec::index_map_type;
  using args = mp::mp_append<mp::mp_list<map const&>, mp::mp_repeat_c<mp::mp_list<index_t>, GridRank>,
                             mp::mp_rename<Extra, mp::mp_list>>;
  constexpr bool callable = mp::mp_apply<std::is_invocable, args>::value;
  static_assert(callable,
                "pallas::BlockSpec: the index map must take one index per grid axis (then the scalar-prefetch "
                "refs)");
  if constexpr (callable) {
    using result = std::remove_cvref_t<mp::mp_apply<std::invoke_result_t, args>>;
    constexpr int returned = index_count<result>::value;
    static_assert(returned != -1,
                  "pallas::BlockSpec: the index map must return integers: pl::idx(i, j), a std::array, a "
                  "tuple, or one integer");
    static_assert(returned == -1 || returned == static_cast<int>(Spec::rank),
                  "pallas::BlockSpec: the index map must return one block index per block dimension "
                  "(indices returned == block rank)");
    if constexpr (returned == static_cast<int>(Spec::rank)) {
      constexpr unsigned slices = slice_entries<result>();
      static_assert(slices == Spec::bounded_dims,
                    "pallas::BlockSpec: the index map must return pl::ds(start, size) for each pl::BoundedSlice "
                    "dimension and an integer for every other one (the numbers: which entries are slices, which "
                    "dimensions are bounded, as bit masks)");
      return slices == Spec::bounded_dims;
    }
    return false;
  }
  return false;
}

/// The TPU tiling rule for one operand: the last two block dims divisible by 8 and 128 or
/// equal to the array's (a squeezed dim counts as 1); 1-D blocks equal to the array, a
/// multiple of 1024, or a power of two >= 128 * (32 / bits).
template <class Spec, class ArrayShape, class T>
constexpr bool tiling_ok() {
  constexpr std::size_t r = Spec::rank;
  constexpr auto dims = Spec::dims;
  if constexpr (r == 1) {
    constexpr index_t bs = dims[0].size;
    constexpr index_t ext = ArrayShape::static_extent(0);
    constexpr index_t bits = static_cast<index_t>(sizeof(T) * 8);
    constexpr bool pow2 = (bs & (bs - 1)) == 0;
    return bs == ext || bs % 1024 == 0 || (pow2 && bs >= 128 * (32 / bits));
  } else {
    constexpr index_t last = dims[r - 1].size, second = dims[r - 2].size;
    constexpr index_t ext_last = ArrayShape::static_extent(r - 1);
    constexpr index_t ext_second = ArrayShape::static_extent(r - 2);
    return (last % 128 == 0 || last == ext_last) && (second % 8 == 0 || second == ext_second);
  }
}

/// The rules that depend on the front end and on the operand's role.
template <caller Who, bool IsOutput, class Spec>
constexpr bool check_role() {
  if constexpr (Spec::raw) {
    return true;
  } else {
    static_assert(Who != caller::pallas_call || Spec::bounded_dims == 0,
                  "pallas::pallas_call: pl::BoundedSlice block dimensions are for emit_pipeline only (as in Pallas)");
    static_assert(Who != caller::pallas_call || !Spec::lookahead,
                  "pallas::pallas_call: pl::use_lookahead is for emit_pipeline inputs only (as in Pallas)");
    static_assert(!IsOutput || !Spec::lookahead,
                  "pallas::BlockSpec: an output cannot use pl::use_lookahead (outputs are never fetched)");
    static_assert(!IsOutput || Spec::buffer_count <= 2,
                  "pallas::BlockSpec: an output takes at most 2 buffers (pl::Buffered<n> with n <= 2)");
    return (Who != caller::pallas_call || (Spec::bounded_dims == 0 && !Spec::lookahead)) &&
           (!IsOutput || (!Spec::lookahead && Spec::buffer_count <= 2));
  }
}

/// The rules on one operand of spec Spec over ref RefT in a grid of rank GridRank (index maps
/// also take the refs of Extra, the scalar-prefetch refs).
template <class Spec, class RefT, std::size_t GridRank, bool CheckTiling, class Extra = std::tuple<>>
constexpr bool check_operand() {
  if constexpr (Spec::raw) {
    return true;
  } else {
    static_assert(Spec::rank == RefT::rank(),
                  "pallas::BlockSpec: the block must have one dimension per array dimension (block rank == "
                  "array rank)");
    if constexpr (Spec::rank == RefT::rank()) {
      if constexpr (!check_index_map_arity<Spec, GridRank, Extra>()) {
        return false;
      } else if constexpr (CheckTiling && PALLAS_TPU_TILING_CHECK && RefT::shape_type::is_static &&
                           Spec::space == memory_space::vmem) {  // SMEM blocks are exempt
        constexpr bool ok = tiling_ok<Spec, typename RefT::shape_type, typename RefT::value_type>();
        static_assert(ok,
                      "pallas::BlockSpec: TPU tiling: the last two block dims must be divisible by 8 and 128 or "
                      "equal the array's (1-D: equal, a multiple of 1024, or a power of two >= 128 * 32 / bits); "
                      "pass pltpu::no_tiling_check to skip this rule");
        return ok;
      } else {
        return true;
      }
    }
    return false;
  }
}

}  // namespace pallas::detail
