// Fused row-wise softmax, ported from Pallas' softmax kernel
// (jax/experimental/pallas/ops/gpu/softmax.py: softmax_kernel, one block of rows per
// program, max-subtracted exp over the row, divided by its sum) to TPU blocks with
// pl::pallas_call: a grid of cdiv(rows, block_rows) steps over (block_rows, cols) f32
// blocks, PARALLEL so the steps split over the TensorCores. The row count need not divide
// by the block: the last block is ragged (its rows past the end are padding, read as
// poison and never written back). Run for several block sizes and 1, 2 and 4 cores, and
// compared with a loop in double precision.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

namespace {

constexpr pl::index_t rows = 1000, cols = 256;  // 1000 = 7 * 128 + 104: a ragged last block

// softmax_kernel: row statistics of shape (block_rows, 1), broadcast back over the row.
struct softmax_kernel {
  void operator()(auto x_ref, auto o_ref) const {
    auto const x = pl::load(x_ref);
    auto const row_max = pl::eval(pl::max(x, pl::axis<1>, pl::keepdims));  // (block_rows, 1)
    auto const numerator = pl::eval(pl::exp(x - row_max));
    auto const denominator = pl::eval(pl::sum(numerator, pl::axis<1>, pl::keepdims));  // (block_rows, 1)
    o_ref[pl::ellipsis] = numerator / denominator;
  }
};

template <pl::index_t block_rows, int cores>
pl::Array<float, rows, cols> softmax(pl::Array<float, rows, cols> const& x) {
  return pl::pallas_call(softmax_kernel{}, pl::out_shape<pl::ShapeDtypeStruct<float, rows, cols>>,
                         pl::grid<pl::cdiv(rows, block_rows)>,
                         pl::in_specs(pl::BlockSpec<block_rows, cols>([](auto i) { return pl::idx(i, 0); })),
                         pl::out_specs(pl::BlockSpec<block_rows, cols>([](auto i) { return pl::idx(i, 0); })),
                         pltpu::compiler_params(pltpu::dimension_semantics<pltpu::PARALLEL>),
                         pltpu::num_cores<cores>)(x);
}

// jax.nn.softmax(x, axis=-1) in double.
std::vector<double> reference(pl::Array<float, rows, cols> const& x) {
  std::vector<double> o(static_cast<std::size_t>(rows * cols));
  for (pl::index_t i = 0; i < rows; ++i) {
    double m = -INFINITY;
    for (pl::index_t j = 0; j < cols; ++j) m = std::max(m, static_cast<double>(x(i, j)));
    double s = 0;
    for (pl::index_t j = 0; j < cols; ++j) s += std::exp(static_cast<double>(x(i, j)) - m);
    for (pl::index_t j = 0; j < cols; ++j)
      o[static_cast<std::size_t>(i * cols + j)] = std::exp(static_cast<double>(x(i, j)) - m) / s;
  }
  return o;
}

bool report(std::string const& what, pl::Array<float, rows, cols> const& o, std::vector<double> const& ref) {
  double worst = 0;
  bool ok = true;
  for (pl::index_t e = 0; e < o.size(); ++e) {
    double const r = ref[static_cast<std::size_t>(e)];
    double const err = std::abs(static_cast<double>(o.data()[e]) - r);  // NaN fails the test below
    worst = std::max(worst, err);
    ok &= err <= 1e-5 * std::abs(r) + 1e-7;
  }
  std::cout << what << ": max |o - ref| = " << worst << (ok ? "  ok" : "  WRONG") << '\n';
  return ok;
}

}  // namespace

int main() {
  // Rows of different scales and offsets, so that each row's max and sum differ: a kernel
  // that used one row's statistics for another row (or the block's) would be far off.
  auto const x = pl::Array<float, rows, cols>::generate([](auto i, auto j) {
    std::uint32_t h = static_cast<std::uint32_t>(i * cols + j) * 2654435761u;
    h ^= h >> 13;
    float const u = static_cast<float>(h % 2048) / 1024.0f - 1.0f;
    return u * static_cast<float>(1 + i % 7) + static_cast<float>(i % 13) * 10.0f;
  });
  auto const ref = reference(x);
  bool ok = true;

  auto const o = softmax<128, 2>(x);
  std::cout << "softmax(x, axis=-1), " << rows << "x" << cols << ":\n" << o << "\n\n";
  ok &= report("block (128, 256), ragged last block of 104 rows, 2 cores", o, ref);
  ok &= report("block (128, 256), 1 core", softmax<128, 1>(x), ref);
  ok &= report("block (128, 256), 4 cores", softmax<128, 4>(x), ref);
  ok &= report("block (8, 256), 125 blocks, 2 cores", softmax<8, 2>(x), ref);
  ok &= report("block (384, 256), ragged last block of 232 rows, 2 cores", softmax<384, 2>(x), ref);
  ok &= report("block (1000, 256), one block", softmax<1000, 2>(x), ref);

  std::cout << (ok ? "ok: every variant matches the loop" : "WRONG") << '\n';
  return ok ? 0 : 1;
}
