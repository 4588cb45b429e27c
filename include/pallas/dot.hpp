// SPDX-License-Identifier: Apache-2.0
#pragma once
// Matrix products on blocks, the MXU of a TensorCore:
//
//   pl::dot(x, y)                                  jnp.dot(x, y) / x @ y  (ranks 1 and 2)
//   pl::dot(x, y, pl::trans_b)                     x @ y.T (pl.dot's trans_b; trans_a too)
//   pl::dot(x, y, pl::preferred_element_type<float>)
//                                                  jnp.dot(..., preferred_element_type=f32)
//   pl::dot_general(x, y, pl::contracting_dims<1, 1>)
//                                                  lax.dot_general(x, y, (((1,), (1,)), ((), ())))
//   pl::dot_general(q, k, pl::contracting_dims<2, 2>, pl::batch_dims<0, 0>)
//                                                  einsum('bqd,bkd->bqk')
//   pl::matmul(x, y)                               jnp.matmul for ranks 1 and 2
//   pl::dot(x, y, pl::precision<pl::Precision::HIGHEST>)
//                                                  precision= (accepted; no effect on a CPU)
//
// The options are in expr/dot_options.hpp.
//
// The result dtype is jnp's: promote(x, y), or the preferred element type (bf16 x bf16 ->
// f32, int8 x int8 -> int32 with it). Floats accumulate in float32 (at HIGHEST precision:
// f32 operands are not rounded to bf16 as a TPU's default precision would), integers in
// wrapping 32-bit arithmetic.
//
// A product is deferred: `acc[pl::ellipsis] += pl::dot(x, y)` (also `=` and `-=`) runs one
// GEMM that accumulates straight into acc, with no temporary, when acc is f32 and
// contiguous along a dimension. The f32 path is BLIS's GEMM (PALLAS_USE_BLIS) or Eigen's
// (when <Eigen/Core> is on the include path: PALLAS_USE_EIGEN, 1 by default then) on the
// block buffers, whatever their strides (transposed views need no copy; detail/gemm.hpp).
// bf16/f16 operands, and integers mixed with floats, are converted to f32 tiles first; so
// are integer products whose every partial sum is exact in f32 (int8 x int8 in chunks of a
// contracted size of 1024), summed in int32 and wrapped as the integer loop that computes
// the others would. A product that reads its destination goes through a temporary. Inside another expression (`pl::dot(x, y) + b`) it is computed first.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <type_traits>
#include <utility>

#include <pallas/detail/gemm.hpp>
#include <pallas/detail/runtime/cost_counters.hpp>
#include <pallas/dtype.hpp>
#include <pallas/expr/assign.hpp>
#include <pallas/expr/astype.hpp>
#include <pallas/expr/block.hpp>
#include <pallas/expr/dot_options.hpp>
#include <pallas/expr/expression.hpp>
#include <pallas/expr/shape_ops.hpp>
#include <pallas/shape.hpp>

namespace pallas {

namespace detail {

// ---------------------------------------------------------------------------------------
// dimension numbers

/// A product of operands of shapes SA and SB contracting dimension CL of SA with CR of SB,
/// with batch dimensions BL, BR (-1: none). Each operand has at most one free dimension.
/// Canonically: lhs (batch, M, K), rhs (batch, K, N), out (batch, M, N).
template <class SA, class SB, int CL, int CR, int BL, int BR>
struct dot_dims {
  static constexpr int ra = static_cast<int>(SA::rank());
  static constexpr int rb = static_cast<int>(SB::rank());
  static constexpr int cl = CL < 0 ? CL + ra : CL;
  static constexpr int cr = CR < 0 ? CR + rb : CR;
  static constexpr bool batched = BL >= 0 || BR >= 0;
  static constexpr int bl = BL < 0 ? -1 : BL;
  static constexpr int br = BR < 0 ? -1 : BR;

  static constexpr bool dims_valid =
      cl >= 0 && cl < ra && cr >= 0 && cr < rb && (!batched || (BL >= 0 && BR >= 0 && bl < ra &&
                                                                 br < rb && bl != cl && br != cr));
  static constexpr int free_of(int rank, int c, int b) {
    for (int r = 0; r < rank; ++r)
      if (r != c && r != b) return r;
    return -1;
  }
  static constexpr int fl = free_of(ra, cl, bl);
  static constexpr int fr = free_of(rb, cr, br);
  /// At most one free dimension per operand.
  static constexpr bool ranks_ok = ra <= 2 + batched && rb <= 2 + batched && ra >= 1 + batched &&
                                   rb >= 1 + batched;
  static constexpr bool ok_structure = dims_valid && ranks_ok;

  static constexpr index_t extent(auto s, int r) {
    return r < 0 ? index_t{1} : decltype(s)::static_extent(static_cast<std::size_t>(r));
  }
  static constexpr index_t k_lhs = ok_structure ? extent(SA{}, cl) : 1;
  static constexpr index_t k_rhs = ok_structure ? extent(SB{}, cr) : 1;
  static constexpr index_t b_lhs = ok_structure ? extent(SA{}, bl) : 1;
  static constexpr index_t b_rhs = ok_structure ? extent(SB{}, br) : 1;
  static constexpr index_t m = ok_structure ? extent(SA{}, fl) : 1;
  static constexpr index_t n = ok_structure ? extent(SB{}, fr) : 1;
  static constexpr index_t k = k_lhs;
  static constexpr index_t batch = b_lhs;

  static constexpr std::size_t out_rank =
      static_cast<std::size_t>(batched) + (fl >= 0) + (fr >= 0);
  static constexpr std::array<index_t, out_rank> dims = [] {
    std::array<index_t, out_rank> d{};
    std::size_t q = 0;
    if constexpr (batched) d[q++] = batch;
    if constexpr (fl >= 0) d[q++] = m;
    if constexpr (fr >= 0) d[q++] = n;
    return d;
  }();
  using out_shape = typename extents_from<dot_dims>::type;
};

template <index_t KL, index_t KR>
constexpr bool check_contracting() {
  static_assert(KL == KR,
                "pallas::dot: the contracting dimensions must have equal extents (lhs, rhs)");
  return KL == KR;
}

template <index_t BL, index_t BR>
constexpr bool check_batch() {
  static_assert(BL == BR, "pallas::dot: the batch dimensions must have equal extents (lhs, rhs)");
  return BL == BR;
}

// ---------------------------------------------------------------------------------------
// the product as an expression (the GEMM kernels are in detail/gemm.hpp)

/// Per-thread scratch tiles, reused across calls (no allocation in steady state).
inline float* dot_scratch(int which, index_t n) {
  struct tile {
    block_storage<float> data;
    index_t capacity = 0;
    // exit() destroys the calling thread's thread_locals before it runs atexit handlers and
    // static destructors, which may still launch kernels on this thread (core 0): then the
    // tile starts again from nothing instead of handing out the freed storage.
    ~tile() { capacity = 0; }
  };
  thread_local tile tiles[3];
  tile& t = tiles[which];
  if (t.capacity < n) {
    t.data = allocate_block<float>(n);
    t.capacity = n;
  }
  return t.data.get();
}

template <class AOp>
inline constexpr int gemm_mode_v = std::is_same_v<AOp, set_assign>   ? 0
                                   : std::is_same_v<AOp, add_assign> ? 1
                                   : std::is_same_v<AOp, sub_assign> ? -1
                                                                     : 2;

/// A deferred product: computed when stored (straight into the destination when it can)
/// or when used inside another expression.
template <class Dims, class Out, class A, class B>
class dot_expr : public expr_methods<dot_expr<Dims, Out, A, B>>, public deferred_marker {
  using ta = typename A::value_type;
  using tb = typename B::value_type;
  using canon_a = shape<Dims::batch, Dims::m, Dims::k>;
  using canon_b = shape<Dims::batch, Dims::k, Dims::n>;
  using canon_c = shape<Dims::batch, Dims::m, Dims::n>;
  static constexpr bool float_path = is_floating_v<Out> || is_floating_v<ta> || is_floating_v<tb>;
  /// The largest magnitude of an integer type (1 for bool).
  template <class I>
  static constexpr double magnitude() noexcept {
    if constexpr (std::is_same_v<I, bool>)
      return 1.0;
    else
      return std::max(-static_cast<double>(std::numeric_limits<I>::min()),
                      static_cast<double>(std::numeric_limits<I>::max()));
  }
  /// For integer operands, the longest contraction whose every partial sum is an integer of
  /// at most 2^24 in magnitude, which the f32 GEMM computes exactly (int8 x int8: 1024).
  static constexpr index_t f32_exact_k = [] {
    if constexpr (float_path)
      return index_t{0};
    else
      return static_cast<index_t>(16777216.0 / (magnitude<ta>() * magnitude<tb>()));
  }();
  /// Integer products that run on the f32 GEMM, at the matrix unit's speed instead of the
  /// integer loop's, in chunks of f32_exact_k summed in wrapping 32-bit integers (one chunk
  /// up to it): where one chunk does it or the chunks are long enough to be worth a GEMM each.
  static constexpr bool exact_in_f32 = !float_path && (Dims::k <= f32_exact_k || f32_exact_k >= 64);

 public:
  using value_type = Out;
  using shape_type = typename Dims::out_shape;
  static constexpr std::size_t rank = shape_type::rank();

  dot_expr(A a, B b) : a_(std::move(a)), b_(std::move(b)) {}

  A const& lhs() const noexcept { return a_; }
  B const& rhs() const noexcept { return b_; }

  /// dst (shape S) AOp= this product.
  template <class AOp, class S, class T>
  void store_into(T* dst, index_array<S::rank()> const& dstr) const {
    auto const la = to_leaf(a_);
    auto const lb = to_leaf(b_);
    auto const va = canonical<canon_a>(la, Dims::bl, Dims::fl, Dims::cl);
    auto const vb = canonical<canon_b>(lb, Dims::br, Dims::cr, Dims::fr);
    // the destination, canonically (batch, m, n)
    index_array<3> cs{0, 0, 0};
    {
      std::size_t q = 0;
      if constexpr (Dims::batched) cs[0] = dstr[q++];
      if constexpr (Dims::fl >= 0) cs[1] = dstr[q++];
      if constexpr (Dims::fr >= 0) cs[2] = dstr[q++];
    }
    constexpr index_t m = Dims::m, n = Dims::n;
    count_dot(2 * Dims::batch * m * n * Dims::k, sizeof(ta) >= 4 || sizeof(tb) >= 4);  // the cost report
    if constexpr (Dims::batch * m * n == 0) {
      return;
    } else if constexpr (exact_in_f32) {
      matrix_view const a = materialize<canon_a>(va, 0);
      matrix_view const b = materialize<canon_b>(vb, 1);
      float* const c = dot_scratch(2, m * n);
      block_storage<std::uint32_t> sum = allocate_block<std::uint32_t>(canon_c::static_size());
      for (index_t bt = 0; bt < Dims::batch; ++bt) {
        std::uint32_t* const sum_bt = sum.get() + bt * m * n;
        for (index_t e = 0; e < m * n; ++e) sum_bt[e] = 0u;
        for (index_t p = 0; p < Dims::k; p += f32_exact_k) {
          matrix_view ac = at_batch(a, bt), bc = at_batch(b, bt);
          ac.data += p * ac.col_stride;  // columns [p, p + kc) of A, rows [p, p + kc) of B
          bc.data += p * bc.row_stride;
          gemm_f32(c, n, ac, bc, m, n, std::min(f32_exact_k, Dims::k - p), 0);
          for (index_t e = 0; e < m * n; ++e) sum_bt[e] += static_cast<std::uint32_t>(static_cast<std::int32_t>(c[e]));
        }
      }
      walk<AOp, S>(dst, dstr, pallas::astype<Out>(leaf<std::uint32_t, S>(sum.get(), row_major<S>())));
    } else if constexpr (float_path) {
      constexpr int mode = gemm_mode_v<AOp>;
      memory_region const region = region_of<T, S>(dst, dstr);
      bool const direct_a = std::is_same_v<ta, float> && unit_stride(va);
      bool const direct_b = std::is_same_v<tb, float> && unit_stride(vb);
      bool const overlap = (direct_a && la.aliases(region, true)) || (direct_b && lb.aliases(region, true));
      if constexpr (std::is_same_v<Out, float> && std::is_same_v<T, float> && mode != 2) {
        bool const c_rows = n == 1 || cs[2] == 1;
        bool const c_cols = m == 1 || cs[1] == 1;
        if (!overlap && (c_rows || c_cols)) {
          matrix_view const a = direct_a ? as_view(va) : materialize<canon_a>(va, 0);
          matrix_view const b = direct_b ? as_view(vb) : materialize<canon_b>(vb, 1);
          for (index_t bt = 0; bt < Dims::batch; ++bt) {
            float* c = dst + bt * cs[0];
            matrix_view const ab = at_batch(a, bt), bb = at_batch(b, bt);
            if (c_rows)
              gemm_f32(c, m == 1 ? n : cs[1], ab, bb, m, n, Dims::k, mode);
            else  // C^T = B^T A^T, with C^T row-major
              gemm_f32(c, n == 1 ? m : cs[2], transposed(bb), transposed(ab), n, m, Dims::k, mode);
          }
          return;
        }
      }
      // through a contiguous f32 temporary
      matrix_view const a = direct_a ? as_view(va) : materialize<canon_a>(va, 0);
      matrix_view const b = direct_b ? as_view(vb) : materialize<canon_b>(vb, 1);
      float* c = dot_scratch(2, canon_c::static_size());
      for (index_t bt = 0; bt < Dims::batch; ++bt)
        gemm_f32(c + bt * m * n, n, at_batch(a, bt), at_batch(b, bt), m, n, Dims::k, 0);
      leaf<float, S> const result(c, row_major<S>());
      if constexpr (std::is_same_v<Out, float>)
        walk<AOp, S>(dst, dstr, result);
      else
        walk<AOp, S>(dst, dstr, pallas::astype<Out>(result));
    } else {
      block_storage<std::uint32_t> ia = allocate_block<std::uint32_t>(canon_a::static_size());
      block_storage<std::uint32_t> ib = allocate_block<std::uint32_t>(canon_b::static_size());
      block_storage<std::uint32_t> ic = allocate_block<std::uint32_t>(canon_c::static_size());
      walk<set_assign, canon_a>(ia.get(), row_major<canon_a>(), pallas::astype<std::uint32_t>(va));
      walk<set_assign, canon_b>(ib.get(), row_major<canon_b>(), pallas::astype<std::uint32_t>(vb));
      for (index_t bt = 0; bt < Dims::batch; ++bt)
        gemm_u32(ic.get() + bt * m * n, ia.get() + bt * m * Dims::k, ib.get() + bt * Dims::k * n,
                 m, n, Dims::k);
      walk<AOp, S>(dst, dstr, pallas::astype<Out>(leaf<std::uint32_t, S>(ic.get(), row_major<S>())));
    }
  }

 private:
  /// A leaf as a canonical rank-3 view: dimensions b, r, c of the operand (-1: absent).
  template <class C, class L>
  static auto canonical(L const& l, int b, int r, int c) noexcept {
    using V = typename L::value_type;
    auto const& s = l.strides();
    auto pick = [&](int d) -> index_t { return d < 0 ? 0 : s[static_cast<std::size_t>(d)]; };
    index_array<3> st{pick(b), pick(r), pick(c)};
    // strides of extent-1 dimensions do not matter: make the matrix row- or column-major
    constexpr index_t rows = C::static_extent(1), cols = C::static_extent(2);
    if (rows == 1) st[1] = st[2] == 1 ? (cols > 1 ? cols : 1) : 1;
    if (cols == 1) st[2] = st[1] == 1 ? (rows > 1 ? rows : 1) : 1;
    return leaf<V, C>(l.data(), st);
  }

  template <class V>
  static bool unit_stride(V const& v) noexcept {
    return v.strides()[1] == 1 || v.strides()[2] == 1;
  }

  template <class V>
  static matrix_view as_view(V const& v) noexcept {
    auto const& s = v.strides();
    return {reinterpret_cast<float const*>(v.data()), s[0], s[1], s[2]};
  }

  /// The operand converted to a contiguous row-major f32 tile (per-thread scratch).
  template <class C, class V>
  static matrix_view materialize(V const& v, int which) {
    float* tile = dot_scratch(which, C::static_size());
    constexpr auto s = row_major<C>();
    walk<set_assign, C>(tile, s, pallas::astype<float>(v));
    return {tile, s[0], s[1], s[2]};
  }

  static matrix_view at_batch(matrix_view v, index_t bt) noexcept {
    v.data += bt * v.batch_stride;
    return v;
  }
  static matrix_view transposed(matrix_view v) noexcept {
    return {v.data, v.batch_stride, v.col_stride, v.row_stride};
  }

  A a_;
  B b_;
};

template <int CL, int CR, int BL, int BR, class Pref, class X, class Y>
auto make_dot(X&& x, Y&& y) {
  using A = operand_t<X>;
  using B = operand_t<Y>;
  using SA = typename A::shape_type;
  using SB = typename B::shape_type;
  using dims = dot_dims<SA, SB, CL, CR, BL, BR>;
  using Out = std::conditional_t<std::is_void_v<Pref>,
                                 promote_t<typename A::value_type, typename B::value_type>, Pref>;
  static_assert(dims::ok_structure,
                "pallas::dot_general: each operand needs one contracting dimension, the same "
                "batch dimensions (at most one), and at most one other dimension; dimensions "
                "in range and distinct");
  if constexpr (dims::ok_structure) {
    if constexpr (dims::k_lhs != dims::k_rhs)
      check_contracting<dims::k_lhs, dims::k_rhs>();
    else if constexpr (dims::b_lhs != dims::b_rhs)
      check_batch<dims::b_lhs, dims::b_rhs>();
  }
  return dot_expr<dims, Out, A, B>(as_operand(std::forward<X>(x)), as_operand(std::forward<Y>(y)));
}

}  // namespace detail

/// jnp.dot / pl.dot on operands of rank 1 or 2, with pl::trans_a, pl::trans_b,
/// pl::preferred_element_type<T> and pl::precision<P...> options.
template <Operand X, Operand Y, detail::DotOption... O>
auto dot(X&& x, Y&& y, O...) {
  constexpr int ra = static_cast<int>(detail::operand_t<X>::shape_type::rank());
  constexpr int rb = static_cast<int>(detail::operand_t<Y>::shape_type::rank());
  static_assert(ra >= 1 && ra <= 2 && rb >= 1 && rb <= 2,
                "pallas::dot: operands must have rank 1 or 2 (use pl::dot_general for batches)");
  constexpr bool ta = (std::is_same_v<O, trans_a_t> || ...);
  constexpr bool tb = (std::is_same_v<O, trans_b_t> || ...);
  constexpr int cl = ta ? 0 : ra - 1;
  constexpr int cr = rb == 1 ? 0 : (tb ? 1 : 0);
  using pref = detail::preferred_of_t<O...>;
  return detail::make_dot<cl, cr, -1, -1, pref>(std::forward<X>(x), std::forward<Y>(y));
}

/// jnp.matmul for ranks 1 and 2: pl::dot.
template <Operand X, Operand Y, detail::DotOption... O>
auto matmul(X&& x, Y&& y, O... o) {
  return dot(std::forward<X>(x), std::forward<Y>(y), o...);
}

/// lax.dot_general with one contracting dimension per operand and optional batch
/// dimensions: pl::dot_general(x, y, pl::contracting_dims<1, 0>[, pl::batch_dims<0, 0>]
/// [, pl::preferred_element_type<T>][, pl::precision<P...>]).
template <Operand X, Operand Y, int CL, int CR, detail::DotGeneralOption... O>
auto dot_general(X&& x, Y&& y, contracting_dims_t<CL, CR>, O...) {
  using batch = detail::batch_of_t<O...>;
  using pref = detail::preferred_of_t<O...>;
  return detail::make_dot<CL, CR, batch::lhs, batch::rhs, pref>(std::forward<X>(x),
                                                                  std::forward<Y>(y));
}

}  // namespace pallas
