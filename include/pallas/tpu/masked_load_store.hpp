// SPDX-License-Identifier: Apache-2.0
#pragma once
// Masked loads and stores of VMEM refs (`pltpu.load(ref, mask=m)`, `pltpu.store(ref, v,
// mask=m)`), with optional indexers as pl::load / pl::store take them:
//
//   auto v = pltpu::load(x_vmem, mask);                       // a pl::block
//   auto r = pltpu::load(x_vmem, pl::ds<8>(i), pl::full_extent, mask);
//   pltpu::store(o_vmem, v * 2, mask);                        // o[mask] = (v * 2)[mask]
//   pltpu::store(o_vmem, pl::ds<8>(i), pl::full_extent, v, mask);
//
// The mask is a bool block expression that broadcasts to the (indexed) ref's shape:
// `pl::iota<std::int32_t, pl::shape<8, 128>>(1) < n` for a ragged last column, a (8, 1)
// row mask, ... Lanes a load masks off have an unspecified value: the dtype's poison (NaN,
// INT_MIN, true) in checked mode, so a kernel that uses them shows it, zero otherwise. A
// store leaves the lanes it masks off untouched (they are not read and written back). The
// stored value follows `ref[...] = value`: the ref's shape (or a scalar) and dtype.

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include <pallas/block_view.hpp>
#include <pallas/config.hpp>
#include <pallas/detail/checked/checked_access.hpp>
#include <pallas/dtype.hpp>
#include <pallas/expr/assign.hpp>
#include <pallas/expr/block.hpp>
#include <pallas/expr/broadcast.hpp>
#include <pallas/expr/elementwise.hpp>
#include <pallas/expr/expression.hpp>
#include <pallas/memory_space.hpp>
#include <pallas/ref.hpp>
#include <pallas/slice.hpp>

namespace pallas::detail {

/// A mask of shape MS padded to the ref's rank, against the ref's shape S.
template <class Padded, class S>
struct mask_broadcast;
template <index_t... A, index_t... B>
struct mask_broadcast<extents<A...>, extents<B...>> {
  static constexpr bool ok = ((A == B || A == 1) && ...);
  static constexpr bool check() {
    static_assert(((A == B || A == 1) && ...),
                  "pallas::tpu::load/store: the mask must broadcast to the ref's shape: every "
                  "extent of the mask must be the ref's or 1 (mask shape, ref shape)");
    return ok;
  }
};

/// Checks a masked load or store of ref type R with mask M; reports one error.
template <class R, class M>
constexpr bool mask_ok() {
  using S = typename R::shape_type;
  static_assert(R::space == memory_space::vmem,
                "pallas::tpu::load/store: masked loads and stores take VMEM refs");
  if constexpr (R::space == memory_space::vmem) {
    static_assert(S::is_static, "pallas::tpu::load/store: the ref must have a static shape");
    if constexpr (S::is_static) {
      using E = operand_t<M>;
      using MS = typename E::shape_type;
      static_assert(std::is_same_v<typename E::value_type, bool>,
                    "pallas::tpu::load/store: the mask must have dtype bool (compare, or use "
                    "pl::astype<bool>)");
      if constexpr (std::is_same_v<typename E::value_type, bool>) {
        static_assert(MS::rank() <= S::rank(),
                      "pallas::tpu::load/store: the mask's rank must not exceed the ref's (mask "
                      "rank <= ref rank)");
        if constexpr (MS::rank() <= S::rank())
          return mask_broadcast<typename pad_shape<MS, S::rank()>::type, S>::check();
      }
    }
  }
  return false;
}

/// The mask as an expression of shape S.
template <class S, class M>
auto mask_of(M&& mask) {
  using E = operand_t<M>;
  if constexpr (std::is_same_v<typename E::shape_type, S>)
    return as_operand(std::forward<M>(mask));
  else
    return broadcast_node<S, E>(as_operand(std::forward<M>(mask)));
}

/// dst[i] = v[i] where m[i], for every index of S; other elements are neither read nor
/// written. m and v have shape S.
template <class S, class T, class M, class V>
void masked_walk(T* dst, index_array<S::rank()> const& dstr, M const& m, V const& v) {
  constexpr std::size_t R = S::rank();
  if constexpr (S::static_size() == 0) {
    return;
  } else if constexpr (R == 0) {
    if (convert<bool>(m.template row<false>(index_array<0>{})(0)))
      dst[0] = convert<T>(v.template row<false>(index_array<0>{})(0));
  } else {
    index_array<R> idx{};
    index_t const s = dstr[R - 1];
    for (index_t o = 0; o < row_count_v<S>; ++o) {
      T* d = dst;
      for (std::size_t r = 0; r + 1 < R; ++r) d += idx[r] * dstr[r];
      auto const mr = m.template row<false>(idx);
      auto const vr = v.template row<false>(idx);
      for (index_t j = 0; j < row_length_v<S>; ++j)
        if (convert<bool>(mr(j))) d[j * s] = convert<T>(vr(j));
      next_row<S>(idx);
    }
  }
}

/// The masked store of v (an expression of shape S and dtype T) under m (shape S); an
/// operand that reads the destination other than element by element is evaluated first.
template <class S, class T, class M, class V>
void masked_assign(T* dst, index_array<S::rank()> const& dstr, M const& m, V const& v) {
  if constexpr (S::static_size() != 0) {
    memory_region const here = region_of<T, S>(dst, dstr);
    bool const m_reads = m.aliases(here, false), v_reads = v.aliases(here, false);
    using MB = block<bool, S>;
    using VB = block<T, S>;
    if (m_reads && v_reads)
      masked_walk<S>(dst, dstr, MB(m).view(), VB(v).view());
    else if (m_reads)
      masked_walk<S>(dst, dstr, MB(m).view(), v);
    else if (v_reads)
      masked_walk<S>(dst, dstr, m, VB(v).view());
    else
      masked_walk<S>(dst, dstr, m, v);
  }
}

template <class R, class V, class M>
void masked_store(R const& ref, V&& value, M&& mask) {
  using S = typename R::shape_type;
  using T = typename R::value_type;
  static_assert(!std::is_const_v<T>, "pallas::tpu::store: cannot store into a ref of const elements");
  if constexpr (mask_ok<R, M>() && !std::is_const_v<T>) {
    check_ref_access(ref, true, "a masked store (pltpu::store)");
    auto const strides = ref.strides().all();
    auto const m = mask_of<S>(std::forward<M>(mask));
    using D = std::remove_cvref_t<V>;
    if constexpr (WeakScalar<D>) {
      static_assert(std::is_same_v<weak_result_t<T, D>, T>,
                    "pallas::tpu::store: a floating-point scalar cannot be stored into an "
                    "integer or bool ref (use pl::astype)");
      masked_assign<S>(ref.data(), strides, m, constant<T, S>(from_scalar<T>(value)));
    } else if constexpr (StrongScalar<D>) {
      static_assert(std::is_same_v<D, T>,
                    "pallas::tpu::store: the value's dtype must be the ref's dtype (convert it "
                    "with pl::astype<T>(value))");
      masked_assign<S>(ref.data(), strides, m, constant<T, S>(convert<T>(value)));
    } else {
      using E = operand_t<V>;
      if constexpr (!same_shape<typename E::shape_type, S>::value) {
        same_shape<typename E::shape_type, S>::check();
      } else {
        static_assert(std::is_same_v<typename E::value_type, T>,
                      "pallas::tpu::store: the value's dtype must be the ref's dtype (convert "
                      "it with pl::astype<T>(value))");
        masked_assign<S>(ref.data(), strides, m, as_operand(std::forward<V>(value)));
      }
    }
  }
}

}  // namespace pallas::detail

namespace pallas::tpu {

/// `pltpu.load(ref, mask=mask)`: the ref's elements where mask holds; the others are
/// unspecified (poison in checked mode, zero otherwise).
template <AnyRef R, class M>
  requires Operand<M>
auto load(R const& ref, M&& mask) {
  using S = typename R::shape_type;
  using T = std::remove_const_t<typename R::value_type>;
  if constexpr (!pallas::detail::mask_ok<R, M>()) {
    return block<T, S>{};  // the rule said why
  } else {
    T const fill = checked_mode ? dtype_traits<T>::poison() : T{};
    return block<T, S>(pallas::where(pallas::detail::mask_of<S>(std::forward<M>(mask)), ref[ellipsis],
                                     pallas::detail::scalar<T>(fill)));
  }
}

/// `pltpu.load(ref.at[idx...], mask=mask)`.
template <AnyRef R, class... A>
  requires(sizeof...(A) >= 2)
auto load(R const& ref, A&&... args) {
  auto all = std::forward_as_tuple(std::forward<A>(args)...);
  return [&]<std::size_t... K>(std::index_sequence<K...>) {
    return pallas::tpu::load(ref.at(std::get<K>(all)...), std::get<sizeof...(A) - 1>(all));
  }(std::make_index_sequence<sizeof...(A) - 1>{});
}

/// `pltpu.store(ref, value, mask=mask)`: ref[i] = value[i] where mask[i]; the other
/// elements are left untouched.
template <AnyRef R, class V, class M>
  requires(Operand<V> || Scalar<V>) && Operand<M>
void store(R const& ref, V&& value, M&& mask) {
  pallas::detail::masked_store(ref, std::forward<V>(value), std::forward<M>(mask));
}

/// `pltpu.store(ref.at[idx...], value, mask=mask)`.
template <AnyRef R, class... A>
  requires(sizeof...(A) >= 3)
void store(R const& ref, A&&... args) {
  auto all = std::forward_as_tuple(std::forward<A>(args)...);
  [&]<std::size_t... K>(std::index_sequence<K...>) {
    pallas::detail::masked_store(ref.at(std::get<K>(all)...), std::get<sizeof...(A) - 2>(all),
                         std::get<sizeof...(A) - 1>(all));
  }(std::make_index_sequence<sizeof...(A) - 2>{});
}

}  // namespace pallas::tpu
