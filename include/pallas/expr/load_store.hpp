// SPDX-License-Identifier: Apache-2.0
#pragma once
// pl::load / pl::store, the function forms of reading and writing refs:
//
//   auto v = pl::load(x_vmem);                  // an owning pl::block (a copy, not a view)
//   auto r = pl::load(x_vmem, pl::ds<8>(i), pl::full_extent);   // = pl::load(x.at(...))
//   pl::store(o_vmem, v * 2);                   // o_vmem[pl::ellipsis] = v * 2
//   std::int32_t n = pl::load(s_smem, 3);       // SMEM: scalars only, every dim indexed
//   pl::store(s_smem.at(3), n + 1);
//
// HBM/ANY refs cannot be loaded or stored (copy them to VMEM with a DMA first).

#include <type_traits>
#include <utility>

#include <pallas/block_view.hpp>
#include <pallas/detail/checked/checked_access.hpp>
#include <pallas/expr/block.hpp>
#include <pallas/expr/expression.hpp>
#include <pallas/memory_space.hpp>
#include <pallas/ref.hpp>
#include <pallas/slice.hpp>

namespace pallas {

namespace detail {

template <class R>
constexpr bool loadable() {
  static_assert(!is_dma_only(R::space),
                "pallas::load: cannot load, store or compute on an HBM/ANY ref; copy it to VMEM "
                "with pltpu::sync_copy or pltpu::make_async_copy first");
  if constexpr (!is_dma_only(R::space)) {
    static_assert(R::space != memory_space::smem || R::rank() == 0,
                  "pallas::load: SMEM refs give and take scalars only; index every dimension "
                  "(rank of the ref after indexing must be 0)");
    return R::space != memory_space::smem || R::rank() == 0;
  }
  return false;
}

}  // namespace detail

/// `pl.load(ref)` / `ref[...]` as a value: an owning pl::block for VMEM refs, a scalar
/// for rank-0 SMEM (and VMEM) refs.
template <AnyRef R>
auto load(R const& ref, detail::place where = detail::place::here()) {
  using T = std::remove_const_t<typename R::value_type>;
  if constexpr (!detail::loadable<R>()) {
    return T{};
  } else if constexpr (R::space == memory_space::smem) {
    detail::check_element_access(ref.data(), sizeof(T), where);  // a copy's destination in flight?
    return T(*ref.data());
  } else {
    return block<T, typename R::shape_type>(ref[ellipsis]);
  }
}

/// `pl.load(ref, idx)`: pl::load(ref.at(indexers...)).
template <AnyRef R, Indexer... I>
  requires(sizeof...(I) >= 1)
auto load(R const& ref, I const&... indexers) {
  if constexpr (is_dma_only(R::space))
    return load(ref);  // reports the HBM rule
  else
    return load(ref.at(indexers...));
}

/// `pl.store(ref, value)`: `ref[...] = value` (VMEM), or a scalar into a rank-0 SMEM ref.
template <AnyRef R, class V>
  requires(Operand<V> || Scalar<V>)
void store(R const& ref, V&& value) {
  using T = typename R::value_type;
  if constexpr (detail::loadable<R>()) {
    if constexpr (R::space == memory_space::smem) {
      static_assert(Scalar<V>, "pallas::store: SMEM refs take scalars only");
      static_assert(!std::is_const_v<T>, "pallas::store: cannot store into a ref of const elements");
      if constexpr (Scalar<V> && !std::is_const_v<T>) {
        detail::check_element_access(ref.data(), sizeof(T), {});
        using D = std::remove_cvref_t<V>;
        if constexpr (WeakScalar<D>)
          *ref.data() = detail::from_scalar<T>(value);
        else
          *ref.data() = convert<T>(value);
      }
    } else {
      ref[ellipsis] = std::forward<V>(value);
    }
  }
}

}  // namespace pallas
