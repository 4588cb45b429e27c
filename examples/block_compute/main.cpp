// Block compute inside a pipelined kernel: a causal softmax attention-score layer,
//
//   def body(x_ref, w_ref, b_ref, o_ref):
//     h = jnp.dot(x_ref[...], w_ref[...], preferred_element_type=jnp.float32) + b_ref[...]
//     h = jnp.maximum(h, 0)                                    # ReLU
//     row = lax.broadcasted_iota(jnp.int32, h.shape, 0) + pl.program_id(0) * BM
//     col = lax.broadcasted_iota(jnp.int32, h.shape, 1)
//     h = jnp.where(col <= row, h, -jnp.inf)                   # causal mask
//     e = jnp.exp(h - jnp.max(h, axis=-1, keepdims=True))
//     o_ref[...] = (e / jnp.sum(e, axis=-1, keepdims=True)).astype(o_ref.dtype)
//
// over row blocks of x (bf16), with the whole of w (bf16) and b (f32) in VMEM. It checks
// every element against a naive double-precision loop and prints a corner of the result.
#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>

#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

constexpr pl::index_t M = 256, K = 128, N = 128, BM = 64;

int main() {
  auto x = pl::Array<pl::bfloat16, M, K>::generate(
      [](auto i, auto j) { return pl::bfloat16(static_cast<float>((i * 7 + j * 3) % 17) / 16 - 0.5f); });
  auto w = pl::Array<pl::bfloat16, K, N>::generate(
      [](auto i, auto j) { return pl::bfloat16(static_cast<float>((i * 5 + j * 11) % 13) / 12 - 0.5f); });
  auto b = pl::Array<float, 1, N>::generate([](auto, auto j) { return static_cast<float>(j % 4) * 0.25f; });

  auto layer = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, M, N>>,
                          pl::mesh<pltpu::TensorCoreMesh<"core">>)([](auto x_hbm, auto w_hbm, auto b_hbm, auto o_hbm) {
    auto body = [](auto x_ref, auto w_ref, auto b_ref, auto o_ref) {
      using S = pl::shape<BM, N>;
      auto h = pl::eval(pl::maximum(
          pl::dot(x_ref[pl::ellipsis], w_ref[pl::ellipsis], pl::preferred_element_type<float>) + b_ref[pl::ellipsis],
          0));
      auto row = pl::iota<std::int32_t, S>(0) + static_cast<std::int32_t>(pl::program_id(0) * BM);
      auto col = pl::iota<std::int32_t, S>(1);
      h = pl::where(col <= row, h, -std::numeric_limits<float>::infinity());
      auto e = pl::eval(pl::exp(h - pl::max(h, pl::axis<-1>, pl::keepdims)));
      o_ref[pl::ellipsis] = e / pl::sum(e, pl::axis<-1>, pl::keepdims);
    };
    pltpu::emit_pipeline(body, pl::grid<M / BM>,
                         pl::in_specs(pl::BlockSpec<BM, K>([](auto i) { return pl::idx(i, 0); }),
                                      pl::BlockSpec<K, N>([](auto) { return pl::idx(0, 0); }),
                                      pl::BlockSpec<1, N>([](auto) { return pl::idx(0, 0); })),
                         pl::out_specs(pl::BlockSpec<BM, N>([](auto i) { return pl::idx(i, 0); })),
                         pltpu::core_axis_name<"core">,
                         pltpu::dimension_semantics<pltpu::PARALLEL>)(x_hbm, w_hbm, b_hbm, o_hbm);
  });
  auto o = layer(x, w, b);

  // the naive reference
  double worst = 0;
  for (pl::index_t i = 0; i < M; ++i) {
    double h[N];
    double mx = -std::numeric_limits<double>::infinity();
    for (pl::index_t j = 0; j < N; ++j) {
      double s = b(0, j);
      for (pl::index_t p = 0; p < K; ++p) s += double(float(x(i, p))) * double(float(w(p, j)));
      h[j] = j <= i ? std::max(s, 0.0) : -std::numeric_limits<double>::infinity();
      mx = std::max(mx, h[j]);
    }
    double z = 0;
    for (pl::index_t j = 0; j < N; ++j) z += std::exp(h[j] - mx);
    for (pl::index_t j = 0; j < N; ++j) worst = std::max(worst, std::abs(o(i, j) - std::exp(h[j] - mx) / z));
  }
  std::printf("row 3, columns 0..4: %.6f %.6f %.6f %.6f %.6f\n", o(3, 0), o(3, 1), o(3, 2), o(3, 3), o(3, 4));
  std::printf("row 200, columns 0..2: %.6f %.6f %.6f\n", o(200, 0), o(200, 1), o(200, 2));
  std::printf("largest difference from the naive loop: %.3g\n", worst);
  bool const ok = worst <= 1e-5;
  std::cout << (ok ? "block_compute: ok" : "block_compute: WRONG") << '\n';
  return ok ? 0 : 1;
}
