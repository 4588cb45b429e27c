// The stateful PRNG of docs/pallas/tpu/prng.rst, and dropout with it:
//
//   def kernel_body(o_ref):
//     pltpu.prng_seed(0)
//     o_ref[...] = pltpu.stateful_uniform(shape=o_ref.shape, minval=0.0, maxval=1.0)
//
//   def dropout(x_ref, o_ref):                      # grid=(M // BM,), PARALLEL
//     pltpu.prng_seed(SEED, pl.program_id(0))       # one stream per block, on any core
//     keep = pltpu.stateful_bernoulli(P_KEEP, x_ref.shape)
//     o_ref[...] = jnp.where(keep, x_ref[...] / P_KEEP, 0)
//
// It checks that the uniform numbers lie in [0, 1) with mean 1/2 and are the same on a
// second run, that dropout keeps a fraction P_KEEP (within 5 standard errors) of x, scaled
// by 1 / P_KEEP, and gives the same mask on one and on two cores.
#include <cmath>
#include <cstdio>

#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

constexpr pl::index_t M = 1024, N = 256, BM = 128;
constexpr float P_KEEP = 0.8f;
constexpr std::int32_t SEED = 1234;

template <int Cores>
pl::Array<float, M, N> dropout(pl::Array<float, M, N> const& x) {
  auto spec = pl::BlockSpec<BM, N>([](auto i) { return pl::idx(i, 0); });
  return pl::pallas_call(
      [](auto x_ref, auto o_ref) {
        pltpu::prng_seed(SEED, pl::program_id(0));
        auto keep = pltpu::stateful_bernoulli(P_KEEP, x_ref.shape);
        o_ref[pl::ellipsis] = pl::where(keep, x_ref[pl::ellipsis] / P_KEEP, 0);
      },
      pl::out_shape<pl::ShapeDtypeStruct<float, M, N>>, pl::grid<M / BM>, pl::in_specs(spec),
      pl::out_specs(spec), pltpu::dimension_semantics<pltpu::PARALLEL>, pltpu::num_cores<Cores>)(x);
}

int main() {
  int failures = 0;

  // The documentation's kernel: no grid, the whole (256, 256) output in one block.
  auto uniform = [] {
    return pl::pallas_call(
        [](auto o_ref) {
          pltpu::prng_seed(0);
          o_ref[pl::ellipsis] = pltpu::stateful_uniform(o_ref.shape, 0.0f, 1.0f);
        },
        pl::out_shape<pl::ShapeDtypeStruct<float, 256, 256>>)();
  };
  auto const u = uniform();
  double sum = 0;
  bool in_range = true;
  for (float v : u) {
    sum += v;
    in_range = in_range && v >= 0.0f && v < 1.0f;
  }
  double const mean = sum / static_cast<double>(u.size());
  double const mean_tolerance = 5 * std::sqrt(1.0 / 12 / static_cast<double>(u.size()));
  std::printf("uniform: mean %.5f (1/2 within %.5f), all in [0, 1): %s\n", mean, mean_tolerance,
              in_range ? "yes" : "no");
  failures += !in_range || std::abs(mean - 0.5) > mean_tolerance;
  failures += !(uniform() == u);  // the same seed, the same numbers

  auto const x = pl::Array<float, M, N>::generate([](auto i, auto j) { return static_cast<float>((i + 3 * j) % 11) + 1; });
  auto const one = dropout<1>(x);
  auto const two = dropout<2>(x);
  double kept = 0;
  int wrong = 0;
  for (pl::index_t i = 0; i < M; ++i)
    for (pl::index_t j = 0; j < N; ++j) {
      float const o = one(i, j);
      if (o != 0) {
        kept += 1;
        wrong += o != x(i, j) / P_KEEP;
      }
    }
  double const n = static_cast<double>(M * N);
  double const tolerance = 5 * std::sqrt(P_KEEP * (1 - P_KEEP) / n);
  std::printf("dropout: kept %.4f of %lld elements (%.2f within %.4f), %d wrongly scaled, "
              "1 core == 2 cores: %s\n",
              kept / n, static_cast<long long>(M * N), P_KEEP, tolerance, wrong, one == two ? "yes" : "no");
  failures += wrong != 0 || std::abs(kept / n - P_KEEP) > tolerance || !(one == two);

  std::puts(failures ? "FAILED" : "OK");
  return failures ? 1 : 0;
}
