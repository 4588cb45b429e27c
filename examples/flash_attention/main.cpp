// Flash attention forward, ported from jax.experimental.pallas.ops.tpu.flash_attention
// (jax/experimental/pallas/ops/tpu/flash_attention.py: _flash_attention_kernel with
// block_b = 1, no bias, segment ids or residuals) with pl::pallas_call. q, k, v are
// (batch * heads, seq, head_dim); the grid is (batch * heads, q blocks, k blocks) with the k
// axis ARBITRARY: the output block and the scratch stay with the core while k runs. k and v
// come in blocks of block_k_major rows, consumed in slices of block_k rows (the kernel's
// unrolled loop). The online softmax keeps, per q row, the running max m and sum l in VMEM
// scratch of shape (bq, 128) (MIN_BLOCK_SIZE lanes, every lane equal, widened with
// pltpu.repeat as the Pallas kernel does; also run with (bq, 1) columns that broadcast) and a
// normalized f32 accumulator (bq, head_dim). Causal: k blocks wholly above the diagonal are
// skipped with pl.when, their index map re-fetches block 0 (the next one used), and the
// diagonal blocks get mask_value added where a column is past the row (iota row/column ids).
// f32 and bf16 inputs (bf16 operands of both dots, f32 accumulation), compared with a naive
// attention in double. Three heads: the PARALLEL batch * heads axis splits unevenly over the
// two cores.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

namespace {

constexpr pl::index_t batch = 1, heads = 3, bh = batch * heads, q_len = 512, kv_len = 512, head_dim = 128;
constexpr pl::index_t min_block_size = 128;  // MIN_BLOCK_SIZE: the lanes of the m and l scratch
constexpr float mask_value = -0.7f * std::numeric_limits<float>::max();  // DEFAULT_MASK_VALUE

// below_or_on_diag: does k block kv_index have a column <= some row of q block q_index?
constexpr bool below_or_on_diag(pl::index_t q_index, pl::index_t bq, pl::index_t kv_index, pl::index_t bk) {
  return (q_index + 1) * bq - 1 >= kv_index * bk;
}

// x of shape (rows, stat_lanes) widened to `width` lanes: pltpu.repeat of the 128-lane
// statistics, or a broadcast of a (rows, 1) column.
template <pl::index_t stat_lanes, pl::index_t width>
auto widen(auto const& x) {
  if constexpr (stat_lanes == 1)
    return x;
  else
    return pltpu::repeat(x, pl::c<width / stat_lanes>, pl::axis<1>);
}

// k and v arrive in (bk_major, head_dim) blocks, consumed in bk_major / bk slices of bk rows
// (the Pallas kernel's unrolled fori_loop over block_k within block_k_major).
template <pl::index_t bq, pl::index_t bk_major, pl::index_t bk, pl::index_t stat_lanes, bool causal>
struct flash_attention_kernel {
  float sm_scale;

  void operator()(auto q_ref, auto k_ref, auto v_ref, auto o_ref, auto m_scratch_ref, auto l_scratch_ref,
                  auto acc_scratch_ref) const {
    using in_t = typename decltype(v_ref)::value_type;
    using out_t = typename decltype(o_ref)::value_type;
    pl::index_t const q_seq_index = pl::program_id(1);
    pl::index_t const kv_seq_index = pl::program_id(2);

    pl::when(kv_seq_index == 0, [&] {
      m_scratch_ref[pl::ellipsis] = pl::full_like(m_scratch_ref, -INFINITY);
      l_scratch_ref[pl::ellipsis] = pl::zeros_like(l_scratch_ref);
      acc_scratch_ref[pl::ellipsis] = pl::zeros_like(acc_scratch_ref);
    });

    auto const body = [&](pl::index_t i) {
      pl::index_t const start_k = i * bk;
      auto const k = k_ref.at(pl::ds<bk>(start_k), pl::full_extent);  // (bk, head_dim)
      auto const v = v_ref.at(pl::ds<bk>(start_k), pl::full_extent);
      // s = q @ k.T in f32 (TRANS_B_DIM_NUMBERS), scaled.
      auto s = pl::eval(pl::dot_general(q_ref[pl::ellipsis], k[pl::ellipsis], pl::contracting_dims<1, 1>,
                                        pl::preferred_element_type<float>));
      if (sm_scale != 1.0f) s = pl::eval(s * sm_scale);
      if constexpr (causal) {
        auto const row_ids = q_seq_index * bq + pl::iota<std::int32_t, pl::shape<bq, bk>>(0);
        auto const col_ids = kv_seq_index * bk_major + start_k + pl::iota<std::int32_t, pl::shape<bq, bk>>(1);
        s = pl::eval(s + pl::where(col_ids <= row_ids, 0.0f, mask_value));
      }
      auto const m_prev = pl::load(m_scratch_ref);  // (bq, stat_lanes)
      auto const l_prev = pl::load(l_scratch_ref);
      auto const m_curr = pl::eval(pl::max(s, pl::axis<1>, pl::keepdims));  // (bq, 1)
      auto const m_next = pl::eval(pl::maximum(m_prev, m_curr));             // (bq, stat_lanes)
      auto const p = pl::eval(pl::exp(s - widen<stat_lanes, bk>(m_next)));
      auto const alpha = pl::eval(pl::exp(m_prev - m_next));
      auto const l_corr = pl::eval(alpha * l_prev);
      auto const l_next = pl::eval(pl::sum(p, pl::axis<1>, pl::keepdims) + l_corr);
      m_scratch_ref[pl::ellipsis] = m_next;
      l_scratch_ref[pl::ellipsis] = l_next;
      auto const l_next_inv_safe = pl::eval(pl::where(l_next == 0.0f, 1.0f, 1.0f / l_next));
      // acc stays normalized by l: rescale the old rows, add this block's share.
      acc_scratch_ref[pl::ellipsis] *= widen<stat_lanes, head_dim>(l_corr * l_next_inv_safe);
      auto const o_curr =
          pl::dot(pl::astype<in_t>(p), v[pl::ellipsis], pl::preferred_element_type<float>);  // (bq, head_dim)
      acc_scratch_ref[pl::ellipsis] += o_curr * widen<stat_lanes, head_dim>(l_next_inv_safe);
    };
    auto const run = [&] {
      for (pl::index_t i = 0; i < bk_major / bk; ++i) body(i);
    };
    if constexpr (causal)
      pl::when(below_or_on_diag(q_seq_index, bq, kv_seq_index, bk_major), run);
    else
      run();

    pl::when(kv_seq_index == pl::num_programs(2) - 1,
             [&] { o_ref[pl::ellipsis] = pl::astype<out_t>(acc_scratch_ref[pl::ellipsis]); });
  }
};

template <class T>
using Seq = pl::Array<T, bh, q_len, head_dim>;

template <pl::index_t bq, pl::index_t bk_major, pl::index_t bk, pl::index_t stat_lanes, bool causal, class T>
Seq<T> flash_attention(Seq<T> const& q, Seq<T> const& k, Seq<T> const& v) {
  // When a causal k block is skipped, fetch the next one used instead: block 0.
  auto const kv_index_map = [](auto b, auto qi, auto ki) {
    pl::index_t const next = !causal || below_or_on_diag(qi, bq, ki, bk_major) ? pl::index_t{ki} : pl::index_t{0};
    return pl::idx(b, next, 0);
  };
  float const sm_scale = 1.0f / std::sqrt(static_cast<float>(head_dim));
  return pl::pallas_call(
      flash_attention_kernel<bq, bk_major, bk, stat_lanes, causal>{sm_scale},
      pl::out_shape<pl::ShapeDtypeStruct<T, bh, q_len, head_dim>>, pl::grid<bh, q_len / bq, kv_len / bk_major>,
      pl::in_specs(pl::BlockSpec<pl::squeezed, bq, head_dim>([](auto b, auto qi, auto) { return pl::idx(b, qi, 0); }),
                   pl::BlockSpec<pl::squeezed, bk_major, head_dim>(kv_index_map),
                   pl::BlockSpec<pl::squeezed, bk_major, head_dim>(kv_index_map)),
      pl::out_specs(pl::BlockSpec<pl::squeezed, bq, head_dim>([](auto b, auto qi, auto) { return pl::idx(b, qi, 0); })),
      pl::scratch_shapes<pltpu::VMEM<float, bq, stat_lanes>, pltpu::VMEM<float, bq, stat_lanes>,
                         pltpu::VMEM<float, bq, head_dim>>,
      pltpu::compiler_params(pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::PARALLEL, pltpu::ARBITRARY>))(q, k, v);
}

// The inputs' values as doubles, in row-major order.
template <class T>
std::vector<double> values(Seq<T> const& x) {
  std::vector<double> out(static_cast<std::size_t>(x.size()));
  for (pl::index_t e = 0; e < x.size(); ++e) out[static_cast<std::size_t>(e)] = static_cast<float>(x.data()[e]);
  return out;
}

// softmax(q k^T / sqrt(d) [+ causal mask]) v in double, from the inputs' values.
template <class T>
std::vector<double> reference(Seq<T> const& q_in, Seq<T> const& k_in, Seq<T> const& v_in, bool causal) {
  auto const q = values(q_in), k = values(k_in), v = values(v_in);
  auto const at = [](std::vector<double> const& x, pl::index_t b, pl::index_t i, pl::index_t d) {
    return x[static_cast<std::size_t>((b * q_len + i) * head_dim + d)];
  };
  std::vector<double> o(static_cast<std::size_t>(bh * q_len * head_dim));
  std::vector<double> s(kv_len);
  double const scale = 1.0 / std::sqrt(static_cast<double>(head_dim));
  for (pl::index_t b = 0; b < bh; ++b)
    for (pl::index_t i = 0; i < q_len; ++i) {
      pl::index_t const n = causal ? i + 1 : kv_len;
      double m = -INFINITY;
      for (pl::index_t j = 0; j < n; ++j) {
        double dot = 0;
        for (pl::index_t d = 0; d < head_dim; ++d) dot += at(q, b, i, d) * at(k, b, j, d);
        s[static_cast<std::size_t>(j)] = dot * scale;
        m = std::max(m, dot * scale);
      }
      double l = 0;
      for (pl::index_t j = 0; j < n; ++j) {
        auto& e = s[static_cast<std::size_t>(j)];
        e = std::exp(e - m);
        l += e;
      }
      for (pl::index_t d = 0; d < head_dim; ++d) {
        double acc = 0;
        for (pl::index_t j = 0; j < n; ++j) acc += s[static_cast<std::size_t>(j)] * at(v, b, j, d);
        o[static_cast<std::size_t>((b * q_len + i) * head_dim + d)] = acc / l;
      }
    }
  return o;
}

template <class T>
bool report(std::string const& what, Seq<T> const& o, std::vector<double> const& ref, double rtol, double atol) {
  double worst = 0;
  bool ok = true;
  for (pl::index_t e = 0; e < o.size(); ++e) {
    double const r = ref[static_cast<std::size_t>(e)];
    double const err = std::abs(static_cast<double>(static_cast<float>(o.data()[e])) - r);  // NaN fails below
    worst = std::max(worst, err);
    ok &= err <= rtol * std::abs(r) + atol;
  }
  std::cout << what << ": max |o - ref| = " << worst << (ok ? "  ok" : "  WRONG") << '\n';
  return ok;
}

// Values in [-scale, scale) from a hash, different for q, k and v.
template <class T>
Seq<T> random_seq(std::uint32_t salt, float scale) {
  return Seq<T>::generate([&](auto b, auto i, auto d) {
    std::uint32_t h = static_cast<std::uint32_t>((b * q_len + i) * head_dim + d) * 2654435761u ^ salt * 40503u;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    return T(scale * (static_cast<float>(h % 4096) / 2048.0f - 1.0f));
  });
}

}  // namespace

int main() {
  // Scale 2 makes q k^T / sqrt(d) span several units, so the running max changes between k blocks.
  auto const q = random_seq<float>(1, 2.0f), k = random_seq<float>(2, 2.0f), v = random_seq<float>(3, 1.0f);
  auto const ref = reference(q, k, v, false);
  auto const ref_causal = reference(q, k, v, true);
  bool ok = true;

  auto const o = flash_attention<128, 128, 128, min_block_size, false>(q, k, v);
  std::cout << "flash attention, (batch * heads, seq, head_dim) = (" << bh << ", " << q_len << ", " << head_dim
            << "), f32:\n"
            << o << "\n\n";
  ok &= report("f32, bq 128, bk 128, (bq, 128) m/l scratch", o, ref, 1e-5, 1e-5);
  ok &= report("f32, bq 128, bk 256, (bq, 128) m/l scratch",
               flash_attention<128, 256, 256, min_block_size, false>(q, k, v), ref, 1e-5, 1e-5);
  ok &= report("f32, bq 256, bk 128, (bq, 1) m/l scratch", flash_attention<256, 128, 128, 1, false>(q, k, v), ref, 1e-5,
               1e-5);
  ok &= report("f32, bq 128, bk_major 256 in slices of bk 128",
               flash_attention<128, 256, 128, min_block_size, false>(q, k, v), ref, 1e-5, 1e-5);
  ok &= report("f32 causal, bq 128, bk 128", flash_attention<128, 128, 128, min_block_size, true>(q, k, v), ref_causal,
               1e-5, 1e-5);
  ok &= report("f32 causal, bq 256, bk 128 (diagonal blocks partly masked)",
               flash_attention<256, 128, 128, min_block_size, true>(q, k, v), ref_causal, 1e-5, 1e-5);
  ok &= report("f32 causal, bq 128, bk_major 256 in slices of bk 128",
               flash_attention<128, 256, 128, min_block_size, true>(q, k, v), ref_causal, 1e-5, 1e-5);
  ok &= report("f32 causal, bq 128, bk 256, (bq, 1) m/l scratch", flash_attention<128, 256, 256, 1, true>(q, k, v),
               ref_causal, 1e-5, 1e-5);

  // bf16 q, k, v; p is rounded to bf16 before p @ v and the output is bf16: each costs up to
  // 2^-8 relative, so allow 2^-6 relative plus a small absolute error.
  auto const qb = random_seq<pl::bfloat16>(1, 2.0f), kb = random_seq<pl::bfloat16>(2, 2.0f),
             vb = random_seq<pl::bfloat16>(3, 1.0f);
  ok &= report("bf16, bq 128, bk 128", flash_attention<128, 128, 128, min_block_size, false>(qb, kb, vb),
               reference(qb, kb, vb, false), 1.0 / 64, 4e-3);
  ok &= report("bf16 causal, bq 128, bk_major 256 in slices of bk 128",
               flash_attention<128, 256, 128, min_block_size, true>(qb, kb, vb),
               reference(qb, kb, vb, true), 1.0 / 64, 4e-3);

  std::cout << (ok ? "ok: every variant matches naive attention" : "WRONG") << '\n';
  return ok ? 0 : 1;
}
