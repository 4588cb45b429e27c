// An int8 weight-and-activation quantized matmul, the TPU kernel pattern of int8 MXU
// matmuls (matmul.md's kernel with int8 operands and an int32 accumulator):
//
//   def kernel(x_ref, w_ref, xs_ref, ws_ref, o_ref, acc_ref):
//     @pl.when(pl.program_id(2) == 0)
//     def _(): acc_ref[...] = jnp.zeros_like(acc_ref)
//     acc_ref[...] += jnp.dot(x_ref[...], w_ref[...], preferred_element_type=jnp.int32)
//     @pl.when(pl.program_id(2) == pl.num_programs(2) - 1)
//     def _(): o_ref[...] = acc_ref[...].astype(jnp.float32) * xs_ref[...] * ws_ref[...]
//
// x (m, k) int8 with one f32 scale per row (xs, (m, 1)), w (k, n) int8 with one per column
// (ws, (1, n)). The int32 products are exact, so the result must equal a loop's bit for bit.
// pl::dot runs int8 blocks on the f32 matrix unit where every partial sum is exact in f32
// (k up to 1024 in one product, longer blocks in chunks of 1024; dot.hpp): the two calls
// below take one path each.
#include <pallas/pallas.hpp>

#include <cstdint>
#include <iostream>
#include <vector>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

namespace {

constexpr pl::index_t m = 256, k = 2048, n = 256;

struct quantized_matmul_kernel {
  void operator()(auto x_ref, auto w_ref, auto xs_ref, auto ws_ref, auto o_ref, auto acc_ref) const {
    pl::when(pl::program_id(2) == 0, [&] { acc_ref[pl::ellipsis] = pl::zeros_like(acc_ref); });
    acc_ref[pl::ellipsis] += pl::dot(x_ref[pl::ellipsis], w_ref[pl::ellipsis], pl::preferred_element_type<std::int32_t>);
    pl::when(pl::program_id(2) == pl::num_programs(2) - 1, [&] {
      o_ref[pl::ellipsis] = pl::astype<float>(acc_ref[pl::ellipsis]) * xs_ref[pl::ellipsis] * ws_ref[pl::ellipsis];
    });
  }
};

template <pl::index_t bm, pl::index_t bk, pl::index_t bn>
pl::Array<float, m, n> quantized_matmul(pl::Array<std::int8_t, m, k> const& x, pl::Array<std::int8_t, k, n> const& w,
                                        pl::Array<float, m, 1> const& xs, pl::Array<float, 1, n> const& ws) {
  return pl::pallas_call(
      quantized_matmul_kernel{}, pl::out_shape<pl::ShapeDtypeStruct<float, m, n>>,
      pltpu::num_scalar_prefetch<0>, pl::grid<m / bm, n / bn, k / bk>,
      pl::in_specs(pl::BlockSpec<bm, bk>([](auto i, auto, auto kk) { return pl::idx(i, kk); }),
                   pl::BlockSpec<bk, bn>([](auto, auto j, auto kk) { return pl::idx(kk, j); }),
                   pl::BlockSpec<bm, 1>([](auto i, auto, auto) { return pl::idx(i, 0); }),
                   pl::BlockSpec<1, bn>([](auto, auto j, auto) { return pl::idx(0, j); })),
      pl::out_specs(pl::BlockSpec<bm, bn>([](auto i, auto j, auto) { return pl::idx(i, j); })),
      pl::scratch_shapes<pltpu::VMEM<std::int32_t, bm, bn>>,
      pltpu::compiler_params(pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::PARALLEL, pltpu::ARBITRARY>))(
      x, w, xs, ws);
}

// A value in [-128, 127] from a hash of (i, j): both extremes occur.
std::int8_t hashed(pl::index_t i, pl::index_t j, std::uint32_t salt) {
  std::uint32_t h = static_cast<std::uint32_t>(i) * 2654435761u ^ static_cast<std::uint32_t>(j) * 40503u ^ salt;
  h ^= h >> 15;
  h *= 2246822519u;
  h ^= h >> 13;
  return static_cast<std::int8_t>(static_cast<int>(h % 256) - 128);
}

bool report(char const* what, pl::Array<float, m, n> const& z, std::vector<float> const& ref) {
  pl::index_t wrong = 0;
  for (pl::index_t e = 0; e < z.size(); ++e) wrong += z.data()[e] != ref[static_cast<std::size_t>(e)];
  std::cout << what << ": " << (wrong == 0 ? "equal to the loop  ok" : "WRONG") << " (" << wrong << " of "
            << z.size() << " differ)\n";
  return wrong == 0;
}

}  // namespace

int main() {
  auto const x = pl::Array<std::int8_t, m, k>::generate([](auto i, auto j) { return hashed(i, j, 1); });
  auto const w = pl::Array<std::int8_t, k, n>::generate([](auto i, auto j) { return hashed(i, j, 2); });
  auto const xs = pl::Array<float, m, 1>::generate([](auto i, auto) { return 0.01f + 0.001f * static_cast<float>(i); });
  auto const ws = pl::Array<float, 1, n>::generate([](auto, auto j) { return 0.02f - 0.0001f * static_cast<float>(j); });

  // The loop: exact int32 sums (|sum| <= 2048 * 128 * 128 = 2^25), then the kernel's float
  // operations in the kernel's order.
  std::vector<float> ref(static_cast<std::size_t>(m * n));
  for (pl::index_t i = 0; i < m; ++i)
    for (pl::index_t j = 0; j < n; ++j) {
      std::int32_t s = 0;
      for (pl::index_t p = 0; p < k; ++p) s += static_cast<std::int32_t>(x(i, p)) * static_cast<std::int32_t>(w(p, j));
      ref[static_cast<std::size_t>(i * n + j)] = static_cast<float>(s) * xs(i, 0) * ws(0, j);
    }

  bool ok = true;
  // k blocks of 512: one f32 product per step, summed across the 4 steps in int32.
  ok &= report("int8, blocks (128, 512, 128)", quantized_matmul<128, 512, 128>(x, w, xs, ws), ref);
  // one k block of 2048: the product runs in two chunks of 1024.
  ok &= report("int8, blocks (128, 2048, 256)", quantized_matmul<128, 2048, 256>(x, w, xs, ws), ref);
  std::cout << (ok ? "ok: both block shapes match the loop" : "WRONG") << '\n';
  return ok ? 0 : 1;
}
