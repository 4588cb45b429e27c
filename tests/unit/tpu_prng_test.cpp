// The stateful PRNG (pltpu::prng_seed, prng_random_bits, stateful_*): Philox4x32-10 against
// the published known-answer vectors; determinism under one seed, independent streams for
// different seeds, seed orders and cores; the same numbers on 1, 2 and 4 cores when a
// pallas_call seeds with its program ids; and the distributions over 2^20 samples, each
// statistic within 5 standard errors of its exact value (a false failure has probability
// below 1e-6 per check, and the seeds are fixed, so the test is deterministic).
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

namespace {

using pl::index_t;
constexpr index_t rows = 1024, cols = 1024;  // 2^20 samples
using big = pl::shape<rows, cols>;

// Random123's known-answer tests for philox4x32-10.
static_assert(pl::detail::philox4x32_10({0, 0, 0, 0}, {0, 0}) ==
              pl::detail::philox_block{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u});
static_assert(pl::detail::philox4x32_10({0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu},
                                        {0xffffffffu, 0xffffffffu}) ==
              pl::detail::philox_block{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu});
static_assert(pl::detail::philox4x32_10({0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u},
                                        {0xa4093822u, 0x299f31d0u}) ==
              pl::detail::philox_block{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u});

/// Runs f() on one core of a kernel and returns what it produced.
template <class F>
auto on_one_core(F f) {
  using R = decltype(f());
  R result{};
  pl::kernel(pl::mesh<pltpu::TensorCoreMesh<"core", 1>>)([&]() { result = f(); })();
  return result;
}

template <class B>
std::vector<double> values(B const& b) {
  std::vector<double> v;
  v.reserve(static_cast<std::size_t>(b.size()));
  for (auto x : b) v.push_back(static_cast<double>(x));
  return v;
}

struct moments {
  double mean = 0, var = 0, skew = 0, kurt = 0;
};
moments moments_of(std::vector<double> const& v) {
  moments m;
  double const n = static_cast<double>(v.size());
  for (double x : v) m.mean += x;
  m.mean /= n;
  double m2 = 0, m3 = 0, m4 = 0;
  for (double x : v) {
    double const d = x - m.mean;
    m2 += d * d, m3 += d * d * d, m4 += d * d * d * d;
  }
  m2 /= n, m3 /= n, m4 /= n;
  m.var = m2;
  m.skew = m3 / std::pow(m2, 1.5);
  m.kurt = m4 / (m2 * m2);
  return m;
}

}  // namespace

TEST_CASE("prng: the same seeds give the same numbers, other seeds, orders and draws differ", "[prng]") {
  using S = pl::shape<8, 128>;
  auto draw = [](auto... seeds) {
    return on_one_core([=] {
      pltpu::prng_seed(seeds...);
      return std::array<pl::block<std::int32_t, S>, 2>{pltpu::prng_random_bits<S>(),
                                                       pltpu::prng_random_bits<S>()};
    });
  };
  auto const a = draw(42);
  auto const b = draw(42);
  auto same = [](auto const& x, auto const& y) {
    index_t n = 0;
    for (index_t i = 0; i < x.size(); ++i) n += x.data()[i] == y.data()[i];
    return n;
  };
  CHECK(same(a[0], b[0]) == a[0].size());  // deterministic
  CHECK(same(a[1], b[1]) == a[1].size());
  // Independent 32-bit words agree by chance with probability 2^-32: none of 1024 should.
  CHECK(same(a[0], a[1]) == 0);            // the state advances
  CHECK(same(a[0], draw(43)[0]) == 0);     // another seed
  CHECK(same(draw(1, 2)[0], draw(2, 1)[0]) == 0);  // seed order matters
  CHECK(same(draw(1, 2)[0], draw(1)[0]) == 0);     // so does every seed
  CHECK(same(draw(std::int32_t{-5})[0], draw(index_t{-5})[0]) == a[0].size());  // int32 == int64
  // Re-seeding restarts the stream.
  auto const again = on_one_core([] {
    pltpu::prng_seed(42);
    (void)pltpu::prng_random_bits<S>();
    pltpu::prng_seed(42);
    return pltpu::prng_random_bits<S>();
  });
  CHECK(same(again, a[0]) == a[0].size());
  // The shape-value spelling draws the same stream.
  auto const by_value = on_one_core([] {
    pltpu::prng_seed(42);
    return pltpu::prng_random_bits(S{});
  });
  CHECK(same(by_value, a[0]) == a[0].size());
}

TEST_CASE("prng: each core has its own generator, the stream depends on the seeds only", "[prng]") {
  // Core c seeds (7, c) and draws; core 1 draws once more first on its own state. Core 0's
  // second run, without core 1's extra draw, must give core 0 the same numbers.
  using S = pl::shape<8, 128>;
  auto run = [](bool extra_draw_on_core_1, bool same_seed) {
    auto const out = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<std::int32_t, 2, 8, 128>>,
                                pl::mesh<pltpu::TensorCoreMesh<"core", 2>>,
                                pl::scratch_types<pltpu::VMEM<std::int32_t, 8, 128>>)([=](auto o_hbm, auto v) {
      index_t const c = pl::axis_index<"core">();
      pltpu::prng_seed(7, same_seed ? 0 : c);
      if (extra_draw_on_core_1 && c == 1) (void)pltpu::prng_random_bits<S>();
      v[pl::ellipsis] = pltpu::prng_random_bits<S>();
      pltpu::sync_copy(v, o_hbm.at(c));
    })();
    return out;
  };
  auto const base = run(false, false), extra = run(true, false), same = run(false, true);
  index_t core0_equal = 0, cores_equal = 0, core1_changed = 0, same_seed_equal = 0;
  for (index_t i = 0; i < 8; ++i)
    for (index_t j = 0; j < 128; ++j) {
      core0_equal += base(0, i, j) == extra(0, i, j);
      core1_changed += base(1, i, j) != extra(1, i, j);
      cores_equal += base(0, i, j) == base(1, i, j);
      same_seed_equal += same(0, i, j) == same(1, i, j);
    }
  CHECK(core0_equal == 1024);     // core 1's draws do not move core 0's state
  CHECK(core1_changed == 1024);   // they move core 1's
  CHECK(cores_equal == 0);        // seeds (7, 0) and (7, 1): independent streams
  CHECK(same_seed_equal == 1024); // the same seeds on two cores: the same stream
}

TEST_CASE("prng: a pallas_call seeded with its program id gives the same numbers on 1, 2, 4 cores",
          "[prng][pallas_call]") {
  auto run = [](auto cores) {
    return pl::pallas_call(
        [](auto o_ref) {
          pltpu::prng_seed(2024, pl::program_id(0));
          o_ref[pl::ellipsis] = pltpu::stateful_uniform(o_ref.shape, -1.0f, 1.0f);
        },
        pl::out_shape<pl::ShapeDtypeStruct<float, 64, 128>>, pl::grid<8>,
        pl::out_specs(pl::BlockSpec<8, 128>([](auto i) { return pl::idx(i, 0); })),
        pltpu::dimension_semantics<pltpu::PARALLEL>, pltpu::num_cores<decltype(cores)::value>)();
  };
  auto const one = run(pl::c<1>), two = run(pl::c<2>), four = run(pl::c<4>);
  CHECK(one == two);
  CHECK(one == four);
  // the blocks differ from each other (each step has its own seed)
  index_t equal_rows = 0;
  for (index_t j = 0; j < 128; ++j) equal_rows += one(0, j) == one(8, j);
  CHECK(equal_rows == 0);
}

TEST_CASE("prng: stateful_uniform is uniform on min <= x < max", "[prng][statistics]") {
  auto const u = on_one_core([] {
    pltpu::prng_seed(11);
    return pltpu::stateful_uniform<big>();
  });
  auto const v = values(u);
  double const n = static_cast<double>(v.size());
  auto const [lo, hi] = std::minmax_element(v.begin(), v.end());
  CHECK(*lo >= 0.0);
  CHECK(*hi < 1.0);
  moments const m = moments_of(v);
  // U(0, 1): mean 1/2 (sd of the mean sqrt(1/12 / n)), variance 1/12 (sd sqrt(1/180 / n))
  CHECK(std::abs(m.mean - 0.5) < 5 * std::sqrt(1.0 / 12 / n));
  CHECK(std::abs(m.var - 1.0 / 12) < 5 * std::sqrt(1.0 / 180 / n));
  // 64 equal bins: Pearson's chi-square with 63 degrees of freedom; P(X > 130) < 1e-6
  std::array<double, 64> bins{};
  for (double x : v) bins[static_cast<std::size_t>(x * 64)] += 1;
  double chi2 = 0;
  for (double c : bins) chi2 += (c - n / 64) * (c - n / 64) / (n / 64);
  CHECK(chi2 < 130);
  // [min, max) and other dtypes
  auto const w = on_one_core([] {
    pltpu::prng_seed(12);
    return pltpu::stateful_uniform<pl::shape<256, 256>>(-3.0f, 5.0f);
  });
  auto const wv = values(w);
  auto const [wlo, whi] = std::minmax_element(wv.begin(), wv.end());
  CHECK(*wlo >= -3.0);
  CHECK(*whi < 5.0);
  CHECK(std::abs(moments_of(wv).mean - 1.0) < 5 * 8 * std::sqrt(1.0 / 12 / 65536));
  auto const h = on_one_core([] {
    pltpu::prng_seed(13);
    return pltpu::stateful_uniform<pl::shape<256, 256>, pl::bfloat16>();
  });
  auto const hv = values(h);
  CHECK(*std::max_element(hv.begin(), hv.end()) < 1.0);  // 7 mantissa bits: at most 1 - 2^-7
  CHECK(std::abs(moments_of(hv).mean - (0.5 - 1.0 / 256)) < 5 * std::sqrt(1.0 / 12 / 65536));
}

TEST_CASE("prng: stateful_normal is standard normal", "[prng][statistics]") {
  auto const z = on_one_core([] {
    pltpu::prng_seed(21);
    return pltpu::stateful_normal<big>();
  });
  auto const v = values(z);
  double const n = static_cast<double>(v.size());
  moments const m = moments_of(v);
  // N(0, 1): sd of the mean 1/sqrt(n), of the variance sqrt(2/n), of the skewness sqrt(6/n),
  // of the kurtosis sqrt(24/n)
  CHECK(std::abs(m.mean) < 5 / std::sqrt(n));
  CHECK(std::abs(m.var - 1) < 5 * std::sqrt(2 / n));
  CHECK(std::abs(m.skew) < 5 * std::sqrt(6 / n));
  CHECK(std::abs(m.kurt - 3) < 5 * std::sqrt(24 / n));
  // P(|z| < 1) = erf(1/sqrt(2)) = 0.682689...
  double inside = 0;
  for (double x : v) inside += std::abs(x) < 1;
  double const p = std::erf(1 / std::sqrt(2.0));
  CHECK(std::abs(inside / n - p) < 5 * std::sqrt(p * (1 - p) / n));
  // an odd size uses half of its last pair
  auto const odd = on_one_core([] {
    pltpu::prng_seed(22);
    return pltpu::stateful_normal<pl::shape<3, 5>>();
  });
  for (auto x : odd) CHECK(std::isfinite(x));
}

TEST_CASE("prng: stateful_bernoulli is true with probability p, stateful_bits' bits are fair",
          "[prng][statistics]") {
  for (float const p : {0.0f, 0.1f, 0.5f, 0.9f, 1.0f}) {
    auto const b = on_one_core([p] {
      pltpu::prng_seed(31);
      return pltpu::stateful_bernoulli<big>(p);
    });
    double ones = 0;
    for (bool x : b) ones += x;
    double const n = static_cast<double>(b.size());
    INFO("p = " << p);
    CHECK(std::abs(ones / n - p) <= 5 * std::sqrt(p * (1 - p) / n));
  }
  auto const w = on_one_core([] {
    pltpu::prng_seed(32);
    return pltpu::stateful_bits<big>();
  });
  double const n = static_cast<double>(w.size());
  for (int bit = 0; bit < 32; ++bit) {
    double set = 0;
    for (std::uint32_t x : w) set += (x >> bit) & 1u;
    INFO("bit " << bit);
    CHECK(std::abs(set / n - 0.5) < 5 * std::sqrt(0.25 / n));
  }
}

TEST_CASE("prng: the PRNG is a kernel's, outside one it throws", "[prng]") {
  CHECK_THROWS_WITH(pltpu::prng_seed(1), Catch::Contains("prng_seed: called outside a kernel"));
  CHECK_THROWS_AS((pltpu::prng_random_bits<pl::shape<8, 128>>()), pl::error);
}
