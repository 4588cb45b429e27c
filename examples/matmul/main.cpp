// The Pallas TPU matmul (docs/pallas/tpu/matmul.md) with pl::pallas_call: a grid of
// (m / bm, n / bn, k / bk) steps, x blocks (bm, bk) at (i, k), y blocks (bk, bn) at (k, j),
// an f32 VMEM scratch accumulator zeroed at k == 0, and the output block written with
// astype at the last k. Run for f32 and bf16 inputs, with a fused activation (ReLU) at the
// final write, and with a transposed right-hand side (y given as (n, k), blocks (bn, bk) at
// (j, k), contracted on both last dims). Each result is checked against a loop; the first
// call's cost report (pltpu::last_launch_report()) is printed and checked by hand.

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

constexpr pl::index_t m = 256, k = 512, n = 256;

struct identity {
  auto operator()(auto&& acc) const { return acc; }
};
struct relu {
  auto operator()(auto&& acc) const { return pl::maximum(acc, 0.0f); }
};

// matmul_kernel of matmul.md: acc_ref += x @ y in f32; z_ref = activation(acc).astype(...)
// at the last k. TransposeRhs: y_ref is a (bn, bk) block of y.T.
template <bool TransposeRhs, class Activation>
struct matmul_kernel {
  void operator()(auto x_ref, auto y_ref, auto z_ref, auto acc_ref) const {
    using out_t = typename decltype(z_ref)::value_type;
    pl::when(pl::program_id(2) == 0, [&] { acc_ref[pl::ellipsis] = pl::zeros_like(acc_ref); });
    if constexpr (TransposeRhs)
      acc_ref[pl::ellipsis] += pl::dot_general(x_ref[pl::ellipsis], y_ref[pl::ellipsis], pl::contracting_dims<1, 1>,
                                               pl::preferred_element_type<float>);
    else
      acc_ref[pl::ellipsis] += pl::dot(x_ref[pl::ellipsis], y_ref[pl::ellipsis], pl::preferred_element_type<float>);
    pl::when(pl::program_id(2) == pl::num_programs(2) - 1,
             [&] { z_ref[pl::ellipsis] = pl::astype<out_t>(Activation{}(acc_ref[pl::ellipsis])); });
  }
};

template <pl::index_t bm, pl::index_t bk, pl::index_t bn, bool TransposeRhs = false, class Activation = identity,
          class T>
pl::Array<T, m, n> matmul(pl::Array<T, m, k> const& x, auto const& y) {
  auto y_spec = [] {
    if constexpr (TransposeRhs)
      return pl::BlockSpec<bn, bk>([](auto, auto j, auto kk) { return pl::idx(j, kk); });
    else
      return pl::BlockSpec<bk, bn>([](auto, auto j, auto kk) { return pl::idx(kk, j); });
  }();
  return pl::pallas_call(
      matmul_kernel<TransposeRhs, Activation>{}, pl::out_shape<pl::ShapeDtypeStruct<T, m, n>>,
      pltpu::num_scalar_prefetch<0>,  // PrefetchScalarGridSpec(num_scalar_prefetch=0, ...)
      pl::grid<m / bm, n / bn, k / bk>,
      pl::in_specs(pl::BlockSpec<bm, bk>([](auto i, auto, auto kk) { return pl::idx(i, kk); }), y_spec),
      pl::out_specs(pl::BlockSpec<bm, bn>([](auto i, auto j, auto) { return pl::idx(i, j); })),
      pl::scratch_shapes<pltpu::VMEM<float, bm, bn>>,
      pltpu::compiler_params(pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::PARALLEL, pltpu::ARBITRARY>))(x, y);
}

// A value in [-1, 1) from a hash of (i, j).
float hashed(pl::index_t i, pl::index_t j, std::uint32_t salt) {
  std::uint32_t h = static_cast<std::uint32_t>(i) * 2654435761u ^ static_cast<std::uint32_t>(j) * 40503u ^ salt;
  h ^= h >> 15;
  h *= 2246822519u;
  h ^= h >> 13;
  return static_cast<float>(h % 4096) / 2048.0f - 1.0f;
}

// x @ y in double from the inputs' values, then the activation.
template <class T>
std::vector<double> reference(pl::Array<T, m, k> const& x, pl::Array<T, k, n> const& y, bool relu_after) {
  std::vector<double> z(static_cast<std::size_t>(m * n), 0.0);
  for (pl::index_t i = 0; i < m; ++i)
    for (pl::index_t p = 0; p < k; ++p) {
      double const a = static_cast<float>(x(i, p));
      for (pl::index_t j = 0; j < n; ++j) z[static_cast<std::size_t>(i * n + j)] += a * static_cast<float>(y(p, j));
    }
  if (relu_after)
    for (auto& v : z) v = std::max(v, 0.0);
  return z;
}

// Prints one line and says whether |z - ref| <= rtol |ref| + atol everywhere.
template <class T>
bool report(std::string const& what, pl::Array<T, m, n> const& z, std::vector<double> const& ref, double rtol,
            double atol) {
  double worst = 0;
  bool ok = true;
  for (pl::index_t e = 0; e < z.size(); ++e) {
    double const r = ref[static_cast<std::size_t>(e)];
    double const err = std::abs(static_cast<double>(static_cast<float>(z.data()[e])) - r);
    worst = std::max(worst, err);
    ok &= err <= rtol * std::abs(r) + atol;
  }
  std::cout << what << ": max |z - ref| = " << worst << (ok ? "  ok" : "  WRONG") << '\n';
  return ok;
}

}  // namespace

int main() {
  // Small integers: every f32 product and sum is exact, so f32 results must match exactly.
  auto const x =
      pl::Array<float, m, k>::generate([](auto i, auto j) { return static_cast<float>((i * 7 + j * 3) % 11) - 5; });
  auto const y =
      pl::Array<float, k, n>::generate([](auto i, auto j) { return static_cast<float>((i * 5 + j) % 13) - 6; });
  auto const ref = reference(x, y, false);
  auto const ref_relu = reference(x, y, true);
  bool ok = true;

  auto const z = matmul<128, 128, 128>(x, y);
  std::cout << "z = x @ y, f32, " << m << "x" << k << "x" << n << ":\n" << z << "\n\n";
  ok &= report("f32, blocks (128, 128, 128)", z, ref, 0, 0);

  // What that call would cost on the TPU: with k / bk = 4 steps every x and y block index
  // changes at each step, so x moves n / bn = 2 times over, y m / bm = 2 times, z once.
  auto const cost = pltpu::last_launch_report();
  std::cout << cost << '\n';
  bool const counted = cost.operand("in_specs[0]")->bytes == 2 * m * k * 4 &&
                       cost.operand("in_specs[1]")->bytes == 2 * k * n * 4 &&
                       cost.operand("out_specs[0]")->bytes == m * n * 4 && cost.flops == 2 * m * n * k;
  std::cout << "cost report: " << (counted ? "bytes and FLOPs as computed by hand  ok" : "WRONG") << "\n\n";
  ok &= counted;
  ok &= report("f32, blocks (256, 128, 256)", matmul<256, 128, 256>(x, y), ref, 0, 0);
  ok &= report("f32, blocks (256, 512, 128)", matmul<256, 512, 128>(x, y), ref, 0, 0);
  ok &= report("f32, fused relu", matmul<128, 128, 128, false, relu>(x, y), ref_relu, 0, 0);
  auto const yt = pl::Array<float, n, k>::generate([&](auto j, auto p) { return y(p, j); });
  ok &= report("f32, transposed rhs (x @ yt.T with yt = y.T)", matmul<128, 128, 128, true>(x, yt), ref, 0, 0);

  // bf16 inputs in [-1, 1), f32 accumulation, bf16 output: the one rounding to bf16 at the
  // final write bounds the error by 2^-8 |ref| (plus a little f32 accumulation error).
  auto const xb = pl::Array<pl::bfloat16, m, k>::generate([](auto i, auto j) { return pl::bfloat16(hashed(i, j, 1)); });
  auto const yb = pl::Array<pl::bfloat16, k, n>::generate([](auto i, auto j) { return pl::bfloat16(hashed(i, j, 2)); });
  ok &=
      report("bf16, blocks (128, 128, 128)", matmul<128, 128, 128>(xb, yb), reference(xb, yb, false), 1.0 / 256, 1e-3);
  ok &= report("bf16, blocks (256, 256, 256), fused relu", matmul<256, 256, 256, false, relu>(xb, yb),
               reference(xb, yb, true), 1.0 / 256, 1e-3);

  std::cout << (ok ? "ok: every variant matches the loop" : "WRONG") << '\n';
  return ok ? 0 : 1;
}
