// Layer norm and RMS norm with a weight (and a bias for layer norm), ported from Pallas'
// forward kernels (jax/experimental/pallas/ops/gpu/layer_norm.py:
// layer_norm_forward_kernel, and rms_norm.py: rms_norm_forward_kernel, which also return
// each row's statistics for the backward pass) to TPU blocks with pl::pallas_call: a grid
// of cdiv(rows, block_rows) PARALLEL steps over (block_rows, cols) f32 blocks, the weight
// and bias as one (cols,) block at every step (broadcast over the rows), and the row statistics (mean and rstd)
// as (rows, 1) outputs written in (block_rows, 1) blocks. Inside the kernel the statistics
// are (block_rows, 1) columns broadcast over the row. Every row has its own mean and scale,
// so a statistic taken from the wrong row (or an op on a (block_rows, 1) block that reads
// only its first row) is caught by the comparison with a loop in double precision, both in
// the normalized output and in the returned mean and rstd.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <string>
#include <tuple>
#include <vector>

#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

namespace {

constexpr pl::index_t rows = 520, cols = 384;  // 520 = 4 * 128 + 8: a ragged last block of 128
constexpr float eps = 1e-5f;

using Matrix = pl::Array<float, rows, cols>;
using Row = pl::Array<float, cols>;  // weight and bias: (cols,), as in Pallas
using Column = pl::Array<float, rows, 1>;

// layer_norm_forward_kernel: mean, variance and rstd per row, (block_rows, 1) each.
struct layer_norm_kernel {
  void operator()(auto x_ref, auto weight_ref, auto bias_ref, auto o_ref, auto mean_ref, auto rstd_ref) const {
    auto const x = pl::load(x_ref);
    auto const mean = pl::eval(pl::sum(x, pl::axis<1>, pl::keepdims) / static_cast<float>(cols));
    auto const centered = pl::eval(x - mean);
    auto const var = pl::eval(pl::sum(centered * centered, pl::axis<1>, pl::keepdims) / static_cast<float>(cols));
    auto const rstd = pl::eval(pl::rsqrt(var + eps));
    o_ref[pl::ellipsis] = centered * rstd * weight_ref[pl::ellipsis] + bias_ref[pl::ellipsis];
    mean_ref[pl::ellipsis] = mean;
    rstd_ref[pl::ellipsis] = rstd;
  }
};

// rms_norm_forward_kernel: no centering, rstd = 1 / sqrt(mean(x^2) + eps).
struct rms_norm_kernel {
  void operator()(auto x_ref, auto weight_ref, auto o_ref, auto rstd_ref) const {
    auto const x = pl::load(x_ref);
    auto const rstd = pl::eval(pl::rsqrt(pl::mean(x * x, pl::axis<1>, pl::keepdims) + eps));
    o_ref[pl::ellipsis] = x * rstd * weight_ref[pl::ellipsis];
    rstd_ref[pl::ellipsis] = rstd;
  }
};

template <pl::index_t block_rows>
constexpr auto row_block = pl::BlockSpec<block_rows, cols>([](auto i) { return pl::idx(i, 0); });
template <pl::index_t block_rows>
constexpr auto stat_block = pl::BlockSpec<block_rows, 1>([](auto i) { return pl::idx(i, 0); });
constexpr auto weight_block = pl::BlockSpec<cols>([](auto) { return pl::idx(0); });

template <pl::index_t block_rows, int cores>
std::tuple<Matrix, Column, Column> layer_norm(Matrix const& x, Row const& weight, Row const& bias) {
  return pl::pallas_call(
      layer_norm_kernel{},
      pl::out_shape<pl::ShapeDtypeStruct<float, rows, cols>, pl::ShapeDtypeStruct<float, rows, 1>,
                    pl::ShapeDtypeStruct<float, rows, 1>>,
      pl::grid<pl::cdiv(rows, block_rows)>, pl::in_specs(row_block<block_rows>, weight_block, weight_block),
      pl::out_specs(row_block<block_rows>, stat_block<block_rows>, stat_block<block_rows>),
      pltpu::compiler_params(pltpu::dimension_semantics<pltpu::PARALLEL>), pltpu::num_cores<cores>)(x, weight, bias);
}

template <pl::index_t block_rows, int cores>
std::tuple<Matrix, Column> rms_norm(Matrix const& x, Row const& weight) {
  return pl::pallas_call(
      rms_norm_kernel{},
      pl::out_shape<pl::ShapeDtypeStruct<float, rows, cols>, pl::ShapeDtypeStruct<float, rows, 1>>,
      pl::grid<pl::cdiv(rows, block_rows)>, pl::in_specs(row_block<block_rows>, weight_block),
      pl::out_specs(row_block<block_rows>, stat_block<block_rows>),
      pltpu::compiler_params(pltpu::dimension_semantics<pltpu::PARALLEL>), pltpu::num_cores<cores>)(x, weight);
}

struct reference_result {
  std::vector<double> o, mean, rstd;
};

// The normalizations in double, row by row.
reference_result reference(Matrix const& x, Row const& weight, Row const* bias) {
  reference_result r{std::vector<double>(static_cast<std::size_t>(rows * cols)), std::vector<double>(rows),
                     std::vector<double>(rows)};
  for (pl::index_t i = 0; i < rows; ++i) {
    double mean = 0, sq = 0;
    for (pl::index_t j = 0; j < cols; ++j) mean += x(i, j);
    mean /= cols;
    if (bias == nullptr) mean = 0;  // RMS norm does not center
    for (pl::index_t j = 0; j < cols; ++j) sq += (x(i, j) - mean) * (x(i, j) - mean);
    double const rstd = 1 / std::sqrt(sq / cols + static_cast<double>(eps));
    for (pl::index_t j = 0; j < cols; ++j)
      r.o[static_cast<std::size_t>(i * cols + j)] =
          (x(i, j) - mean) * rstd * weight(j) + (bias != nullptr ? static_cast<double>((*bias)(j)) : 0.0);
    r.mean[static_cast<std::size_t>(i)] = mean;
    r.rstd[static_cast<std::size_t>(i)] = rstd;
  }
  return r;
}

// |got - ref| <= rtol |ref| + atol for every element (NaN fails).
template <class A>
bool close(std::string const& what, A const& got, std::vector<double> const& ref, double rtol, double atol) {
  double worst = 0;
  bool ok = true;
  for (pl::index_t e = 0; e < got.size(); ++e) {
    double const r = ref[static_cast<std::size_t>(e)];
    double const err = std::abs(static_cast<double>(got.data()[e]) - r);
    worst = std::max(worst, err);
    ok &= err <= rtol * std::abs(r) + atol;
  }
  std::cout << "  " << what << ": max error " << worst << (ok ? "  ok" : "  WRONG") << '\n';
  return ok;
}

template <pl::index_t block_rows, int cores>
bool check_layer_norm(Matrix const& x, Row const& w, Row const& b, reference_result const& ref) {
  std::cout << "layer norm, block (" << block_rows << ", " << cols << "), " << cores << " core(s):\n";
  auto const [o, mean, rstd] = layer_norm<block_rows, cores>(x, w, b);
  bool const out_ok = close("out", o, ref.o, 1e-5, 1e-5);  // each reported, none skipped
  bool const mean_ok = close("mean", mean, ref.mean, 1e-5, 1e-5);
  bool const rstd_ok = close("rstd", rstd, ref.rstd, 1e-5, 0);
  return out_ok && mean_ok && rstd_ok;
}

template <pl::index_t block_rows, int cores>
bool check_rms_norm(Matrix const& x, Row const& w, reference_result const& ref) {
  std::cout << "rms norm, block (" << block_rows << ", " << cols << "), " << cores << " core(s):\n";
  auto const [o, rstd] = rms_norm<block_rows, cores>(x, w);
  bool const out_ok = close("out", o, ref.o, 1e-5, 1e-5);
  bool const rstd_ok = close("rstd", rstd, ref.rstd, 1e-5, 0);
  return out_ok && rstd_ok;
}

}  // namespace

int main() {
  // Row i has its own offset and scale, so every row's mean and rstd differ.
  auto const x = Matrix::generate([](auto i, auto j) {
    std::uint32_t h = static_cast<std::uint32_t>(i * cols + j) * 2654435761u;
    h ^= h >> 15;
    float const u = static_cast<float>(h % 4096) / 2048.0f - 1.0f;
    return u * (0.5f + static_cast<float>(i % 9)) + static_cast<float>(i % 17) - 8.0f;
  });
  auto const w = Row::generate([](auto j) { return 0.5f + static_cast<float>(j % 5) * 0.25f; });
  auto const b = Row::generate([](auto j) { return static_cast<float>(j % 3) - 1.0f; });
  auto const ln_ref = reference(x, w, &b);
  auto const rms_ref = reference(x, w, nullptr);

  bool ok = true;
  auto const [o, mean, rstd] = layer_norm<128, 2>(x, w, b);
  std::cout << "layer_norm(x) * w + b, " << rows << "x" << cols << ":\n" << o << "\nmean:\n" << mean << "\n\n";
  ok &= check_layer_norm<128, 2>(x, w, b, ln_ref);  // ragged last block of 8 rows
  ok &= check_layer_norm<128, 1>(x, w, b, ln_ref);
  ok &= check_layer_norm<8, 4>(x, w, b, ln_ref);
  ok &= check_layer_norm<256, 2>(x, w, b, ln_ref);  // ragged last block of 8 rows of 256
  ok &= check_rms_norm<128, 2>(x, w, rms_ref);
  ok &= check_rms_norm<8, 1>(x, w, rms_ref);
  ok &= check_rms_norm<256, 4>(x, w, rms_ref);

  std::cout << (ok ? "ok: every variant matches the loop" : "WRONG") << '\n';
  return ok ? 0 : 1;
}
