// Stores into blocks with size-1 dimensions in every position (rank 1 to 3), on every
// layout of unit_dims_support.hpp, against a naive loop: `=` from views, owning blocks,
// scalars and expressions, pl::store, compound assignments with a scalar and with the
// destination itself. Then the same inside kernels, where checked mode poisons VMEM: a
// (16, 1) column of a scratch buffer and a pallas_call over (128, 1) blocks; and numpy's
// in-place broadcasting of compound assignments in the forms kernels use.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <boost/mp11/algorithm.hpp>

#include <pallas/pallas.hpp>

#include "unit_dims_checks.hpp"
#include "unit_dims_support.hpp"

namespace pltpu = pallas::tpu;

namespace {

using namespace unit_dims;
using std::int32_t;

template <class S>
void sweep_compound_scalars() {
  using F = float;
  using I = int32_t;
  check_compound_scalar_and_self<F, S>("f32 +=", [](auto&& d, auto const& v) { d += v; },
                                       [](F a, F b) { return a + b; }, 1.5f);
  check_compound_scalar_and_self<F, S>("f32 /=", [](auto&& d, auto const& v) { d /= v; },
                                       [](F a, F b) { return a / b; }, 4.0f, domain::nonzero);
  check_compound_scalar_and_self<I, S>("i32 %=", [](auto&& d, auto const& v) { d %= v; }, floor_mod, -3,
                                       domain::nonzero);
  check_compound_scalar_and_self<I, S>("i32 >>=", [](auto&& d, auto const& v) { d >>= v; },
                                       [](I a, I b) { return a >> b; }, 1, domain::shift);
}

/// `=` from views of another layout, owning blocks, scalars, expressions; pl::store.
template <class S>
void sweep_store() {
  using F = float;
  report rep{"store " + shape_name<S>()};
  unsigned seed = 50;
  for (layout la : all_layouts)
    for (layout lo : all_layouts) {
      buffer<F, S> const a(la, seed++, domain::any);
      std::string const where = std::string(name(la)) + " -> " + name(lo);
      auto const av = [&](auto const& i) { return a.at(i); };
      {
        buffer<F, S> const o(lo, 0, domain::poison);
        o.ref()[pl::ellipsis] = a.view();
        rep.add(where + " o = a", compare(o, av));
      }
      {
        buffer<F, S> const o(lo, 0, domain::poison);
        o.ref()[pl::ellipsis] = pl::load(a.ref());
        rep.add(where + " o = load(a)", compare(o, av));
      }
      {
        buffer<F, S> const o(lo, 0, domain::poison);
        pl::store(o.ref(), -a.view());
        rep.add(where + " store(o, -a)", compare(o, [&](auto const& i) { return -a.at(i); }));
      }
      {
        buffer<F, S> const o(lo, 0, domain::poison);
        o.ref()[pl::ellipsis] = 2.5f;
        rep.add(where + " o = 2.5", compare(o, [](auto const&) { return 2.5f; }));
      }
      {
        buffer<int32_t, S> const o(lo, 0, domain::poison);
        o.ref()[pl::ellipsis] = pl::astype<int32_t>(a.view() * 4);
        rep.add(where + " o = astype<i32>(a * 4)",
                compare(o, [&](auto const& i) { return static_cast<int32_t>(a.at(i) * 4); }));
      }
      {
        buffer<F, S> const o(lo, seed++, domain::any);
        std::vector<F> const old = o.values();
        o.ref()[pl::ellipsis] = o.view() * a.view() + o.view();  // reads the destination
        rep.add(where + " o = o * a + o", compare(o, [&](auto const& i) {
                  F const x = old[linear<S>(i)];
                  return x * a.at(i) + x;
                }));
      }
    }
  rep.check();
}

template <class S>
void sweep_shape() {
  sweep_compound_scalars<S>();
  sweep_store<S>();
}

}  // namespace

TEST_CASE("stores into blocks with size-1 dimensions match a naive loop",
          "[expr][unit_dims]") {
  mp::mp_for_each<mp::mp_transform<mp::mp_identity, unit_shapes>>(
      [](auto s) { sweep_shape<typename decltype(s)::type>(); });
}

TEST_CASE("checked mode: a (16, 1) column of poisoned VMEM scratch computes and writes only itself",
          "[expr][unit_dims][checked]") {
  // The scratch buffer starts as NaN in checked mode: an element read from outside the
  // column would make a result NaN, and an element written outside it would replace NaN.
  auto k = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 16, 128>>,
                      pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                      pl::scratch_types<pltpu::VMEM<float, 16, 128>, pltpu::VMEM<float, 16, 1>>)(
      [](auto o_hbm, auto s, auto col) {
        auto x = s.at(pl::full_extent, pl::ds<1>(3));  // (16, 1), stride 128
        auto y = s.at(pl::full_extent, pl::ds<1>(5));
        x[pl::ellipsis] = pl::iota<float, pl::shape<16, 1>>(0);
        y[pl::ellipsis] = x[pl::ellipsis] + x[pl::ellipsis];          // 2 i
        y[pl::ellipsis] += x[pl::ellipsis] * 2;                       // 4 i
        col[pl::ellipsis] = pl::maximum(y[pl::ellipsis] - 8, 0);      // contiguous (16, 1)
        col[pl::ellipsis] = col[pl::ellipsis] + col[pl::ellipsis];    // max(8 i - 16, 0)
        s.at(pl::full_extent, pl::ds<1>(7))[pl::ellipsis] =
            pl::where(col[pl::ellipsis] > 0, col[pl::ellipsis], -1);
        pltpu::sync_copy(s, o_hbm);
      });
  pl::Array<float, 16, 128> const o = k();
  int wrong = 0, not_poison = 0;
  for (index_t i = 0; i < 16; ++i)
    for (index_t j = 0; j < 128; ++j) {
      float const v = o(i, j);
      float const fi = static_cast<float>(i);
      if (j == 3) wrong += v != fi;
      else if (j == 5) wrong += v != 4 * fi;
      else if (j == 7) wrong += v != (8 * fi - 16 > 0 ? 8 * fi - 16 : -1.0f);
      else not_poison += !std::isnan(v);
    }
  CHECK(wrong == 0);
  CHECK(not_poison == 0);
}

TEST_CASE("pallas_call over (128, 1) blocks: elementwise ops see every row", "[expr][unit_dims]") {
  constexpr index_t n = 384;
  auto const x = pl::Array<float, n, 1>::generate([](auto i, auto) { return static_cast<float>(i % 17) - 8; });
  auto const y = pl::Array<float, n, 1>::generate([](auto i, auto) { return static_cast<float>(i % 5) + 1; });
  auto const spec = pl::BlockSpec<128, 1>([](auto i) { return pl::idx(i, 0); });
  auto const o = pl::pallas_call(
      [](auto x_ref, auto y_ref, auto o_ref) {
        auto const xv = x_ref[pl::ellipsis];
        o_ref[pl::ellipsis] = pl::where(xv > 0, xv * 2 + 1, pl::maximum(xv, -3)) / y_ref[pl::ellipsis];
        o_ref[pl::ellipsis] += y_ref[pl::ellipsis];
      },
      pl::out_shape<pl::ShapeDtypeStruct<float, n, 1>>, pl::grid<n / 128>, pl::in_specs(spec, spec),
      pl::out_specs(spec))(x, y);
  int wrong = 0;
  for (index_t i = 0; i < n; ++i) {
    float const a = x(i, 0), b = y(i, 0);
    float const want = (a > 0 ? a * 2 + 1 : (a > -3 ? a : -3.0f)) / b + b;
    wrong += o(i, 0) != want;
  }
  CHECK(wrong == 0);
}

TEST_CASE("compound assignment broadcasts its value as numpy's in-place operators do",
          "[expr][broadcast]") {
  constexpr index_t bq = 8, bk = 128;
  std::vector<float> mem(bq * bk), alpha_mem(bq), row_mem(bk);
  for (index_t i = 0; i < bq * bk; ++i) mem[static_cast<std::size_t>(i)] = static_cast<float>(i % 13) - 6;
  for (index_t i = 0; i < bq; ++i) alpha_mem[static_cast<std::size_t>(i)] = 0.5f * static_cast<float>(i + 1);
  for (index_t j = 0; j < bk; ++j) row_mem[static_cast<std::size_t>(j)] = static_cast<float>(j % 7);
  std::vector<float> const orig = mem;
  pl::Ref<float, pl::shape<bq, bk>, pl::memory_space::vmem> acc(mem.data(), {});
  pl::Ref<float, pl::shape<bq, 1>, pl::memory_space::vmem> alpha(alpha_mem.data(), {});
  pl::Ref<float, pl::shape<1, bk>, pl::memory_space::vmem> row(row_mem.data(), {});
  auto at = [&](index_t i, index_t j) { return mem[static_cast<std::size_t>(i * bk + j)]; };
  auto was = [&](index_t i, index_t j) { return orig[static_cast<std::size_t>(i * bk + j)]; };

  SECTION("acc *= alpha, alpha of shape (bq, 1): flash attention's rescale") {
    acc[pl::ellipsis] *= alpha[pl::ellipsis];
    int wrong = 0;
    for (index_t i = 0; i < bq; ++i)
      for (index_t j = 0; j < bk; ++j) wrong += at(i, j) != was(i, j) * alpha_mem[static_cast<std::size_t>(i)];
    CHECK(wrong == 0);
  }
  SECTION("acc += row (1, bk), acc -= a lower-rank (bk,) value, acc /= a (1, 1) value") {
    acc[pl::ellipsis] += row[pl::ellipsis];
    acc[pl::ellipsis] -= pl::reshape<bk>(row[pl::ellipsis]) * 2;
    acc[pl::ellipsis] /= pl::full<float, pl::shape<1, 1>>(4.0f);
    int wrong = 0;
    for (index_t i = 0; i < bq; ++i)
      for (index_t j = 0; j < bk; ++j) {
        float const r = row_mem[static_cast<std::size_t>(j)];
        wrong += at(i, j) != (was(i, j) + r - r * 2) / 4.0f;
      }
    CHECK(wrong == 0);
  }
  SECTION("the online-softmax update: m = max(x, axis 1, keepdims); acc *= exp(m_prev - m)") {
    auto const m = pl::max(acc[pl::ellipsis], pl::axis<1>, pl::keepdims);  // (bq, 1)
    acc[pl::ellipsis] -= m;
    acc[pl::ellipsis] *= pl::exp(alpha[pl::ellipsis] - m);
    int wrong = 0;
    for (index_t i = 0; i < bq; ++i) {
      float mx = was(i, 0);
      for (index_t j = 1; j < bk; ++j) mx = std::max(mx, was(i, j));
      float const scale = std::exp(alpha_mem[static_cast<std::size_t>(i)] - mx);
      for (index_t j = 0; j < bk; ++j) wrong += std::abs(at(i, j) - (was(i, j) - mx) * scale) > 1e-5f * std::abs(mx) + 1e-6f;
    }
    CHECK(wrong == 0);
  }
  SECTION("a value that reads the destination goes through a temporary: acc *= acc[:, 0:1]") {
    acc[pl::ellipsis] *= acc.at(pl::full_extent, pl::ds<1>(pl::c<0>))[pl::ellipsis];
    int wrong = 0;
    for (index_t i = 0; i < bq; ++i)
      for (index_t j = 0; j < bk; ++j) wrong += at(i, j) != was(i, j) * was(i, 0);
    CHECK(wrong == 0);
  }
  SECTION("acc += pl::dot(x, w) with w of shape (K, 1): a (bq, 1) product over every column") {
    std::vector<float> x_mem(bq * 4), w_mem(4);
    for (std::size_t k = 0; k < x_mem.size(); ++k) x_mem[k] = static_cast<float>(k % 5) - 2;
    for (std::size_t k = 0; k < w_mem.size(); ++k) w_mem[k] = static_cast<float>(k) + 1;
    pl::Ref<float, pl::shape<bq, 4>, pl::memory_space::vmem> x(x_mem.data(), {});
    pl::Ref<float, pl::shape<4, 1>, pl::memory_space::vmem> w(w_mem.data(), {});
    acc[pl::ellipsis] += pl::dot(x[pl::ellipsis], w[pl::ellipsis]);
    int wrong = 0;
    for (index_t i = 0; i < bq; ++i) {
      float d = 0;
      for (index_t k = 0; k < 4; ++k) d += x_mem[static_cast<std::size_t>(i * 4 + k)] * w_mem[static_cast<std::size_t>(k)];
      for (index_t j = 0; j < bk; ++j) wrong += at(i, j) != was(i, j) + d;
    }
    CHECK(wrong == 0);
  }
  SECTION("owning blocks broadcast too: b += (bq, 1), b *= (1, bk)") {
    pl::block<float, pl::shape<bq, bk>> b = acc[pl::ellipsis];
    b += alpha[pl::ellipsis];
    b *= row[pl::ellipsis];
    int wrong = 0;
    for (index_t i = 0; i < bq; ++i)
      for (index_t j = 0; j < bk; ++j)
        wrong += b(i, j) != (was(i, j) + alpha_mem[static_cast<std::size_t>(i)]) * row_mem[static_cast<std::size_t>(j)];
    CHECK(wrong == 0);
  }
}
