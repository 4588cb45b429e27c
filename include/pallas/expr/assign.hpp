// SPDX-License-Identifier: Apache-2.0
#pragma once
// Evaluating an expression into a block, in one pass:
// - a flat loop over the elements when the destination and every leaf are contiguous
//   with the destination's shape (the compiler vectorizes it);
// - otherwise row by row, with unit-stride rows when every leaf allows it, strided rows
//   when not; broadcasting operands are walked by index, never materialized;
// - when the expression reads the destination other than element by element at the same
//   index (a transpose, a roll, a broadcast, a shifted slice of it), it is evaluated into
//   a temporary first. `x[...] = x[...] + 1` needs no temporary.
//
// Assignments: `=` (the value's dtype must be the block's), `+=`, `-=`, `*=`, `/=`, `%=`,
// `&=`, `|=`, `^=`, `<<=`, `>>=` (`b op= v` is `b = b op v`: its dtype must stay b's).

#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

#include <pallas/detail/buffer_pool.hpp>
#include <pallas/dtype.hpp>
#include <pallas/expr/expression.hpp>
#include <pallas/expr/ops.hpp>
#include <pallas/shape.hpp>

namespace pallas::detail {

// ---------------------------------------------------------------------------------------
// storage

inline constexpr std::size_t block_alignment = array_alignment;

/// Gives a block's memory back (the pool keeps it from its minimum size up).
struct block_delete {
  std::size_t bytes = 0;
  void operator()(void* p) const noexcept { buffer_pool::instance().give(p, bytes); }
};

template <class T>
using block_storage = std::unique_ptr<T[], block_delete>;

/// Uninitialized, 64-byte aligned storage for n elements. Large blocks come from the buffer
/// pool: a kernel body's block values are the same sizes at every grid step, and glibc maps
/// (and faults in) every aligned allocation from 128 KiB up afresh.
template <class T>
block_storage<T> allocate_block(index_t n) {
  static_assert(std::is_trivially_copyable_v<T>, "pallas::block: elements must be trivially copyable");
  std::size_t const bytes = static_cast<std::size_t>(n > 0 ? n : 1) * sizeof(T);
  return block_storage<T>(static_cast<T*>(buffer_pool::instance().take(bytes)), block_delete{bytes});
}

// ---------------------------------------------------------------------------------------
// assignment operators

/// `=`.
struct set_assign {
  template <class T, class V>
  static constexpr T apply(T, V v) noexcept {
    return convert<T>(v);
  }
};

/// `op=`: the old value op the new one, in the block's dtype.
template <class Op>
struct compound_assign {
  template <class T, class V>
  static T apply(T d, V v) noexcept {
    return Op::apply(d, convert<T>(v));
  }
};

using add_assign = compound_assign<add_op>;
using sub_assign = compound_assign<sub_op>;

/// d AOp= v. `=` does not read d (it may be uninitialized memory).
template <class AOp, class T, class V>
inline void assign_one(T& d, V v) noexcept {
  if constexpr (std::is_same_v<AOp, set_assign>)
    d = convert<T>(v);
  else
    d = AOp::apply(d, v);
}

// ---------------------------------------------------------------------------------------
// the loops

template <class AOp, bool Unit, class S, class T, class E>
void walk_rows(T* dst, index_array<S::rank()> const& dstr, E const& e) {
  constexpr std::size_t R = S::rank();
  constexpr index_t length = row_length_v<S>;
  constexpr index_t rows = row_count_v<S>;
  index_array<R> idx{};
  for (index_t o = 0; o < rows; ++o) {
    T* d = dst;
    for (std::size_t r = 0; r + 1 < R; ++r) d += idx[r] * dstr[r];
    auto const v = e.template row<Unit>(idx);
    if constexpr (Unit) {
      for (index_t j = 0; j < length; ++j) assign_one<AOp>(d[j], v(j));
    } else {
      index_t const s = dstr[R - 1];
      for (index_t j = 0; j < length; ++j) assign_one<AOp>(d[j * s], v(j));
    }
    next_row<S>(idx);
  }
}

/// dst (shape S, strides dstr) op= e, without looking for aliasing.
template <class AOp, class S, class T, class E>
void walk(T* dst, index_array<S::rank()> const& dstr, E const& e) {
  constexpr std::size_t R = S::rank();
  if constexpr (S::static_size() == 0) {
    return;
  } else if constexpr (R == 0) {
    auto const v = e.template row<true>(index_array<0>{});
    assign_one<AOp>(dst[0], v(0));
  } else {
    if constexpr (E::flat_shape) {
      if (is_contiguous<S>(dstr) && e.contiguous()) {
        constexpr index_t n = S::static_size();
        auto const v = e.template row<true>(index_array<R>{});
        for (index_t i = 0; i < n; ++i) assign_one<AOp>(dst[i], v(i));
        return;
      }
    }
    if (dstr[R - 1] == 1 && e.unit_rows())
      walk_rows<AOp, true, S>(dst, dstr, e);
    else
      walk_rows<AOp, false, S>(dst, dstr, e);
  }
}

/// dst op= e, through a temporary when e reads dst other than element by element.
template <class AOp, class S, class T, class E>
void assign_expression(T* dst, index_array<S::rank()> const& dstr, E const& e) {
  if constexpr (S::static_size() != 0) {
    if (e.aliases(region_of<T, S>(dst, dstr), false)) {
      using V = typename E::value_type;
      constexpr auto contiguous_strides = row_major<S>();
      block_storage<V> tmp = allocate_block<V>(S::static_size());
      walk<set_assign, S>(tmp.get(), contiguous_strides, e);
      walk<AOp, S>(dst, dstr, leaf<V, S>(tmp.get(), contiguous_strides));
      return;
    }
    walk<AOp, S>(dst, dstr, e);
  }
}

}  // namespace pallas::detail
