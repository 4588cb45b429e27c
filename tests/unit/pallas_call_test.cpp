// pl::pallas_call against naive references: the TPU matmul (f32 for every (bm, bk, bn) in
// {128, 256}^3, ragged shapes, 1/2/4 cores; bf16 with an f32 scratch accumulator; a fused
// activation; a transposed RHS), the grid and BlockSpec behaviours (program ids, the core
// split, ragged blocks, last write wins, squeezed and Element dims, Buffered, RevisitMode,
// dynamic grids, default whole-array specs, raw ANY refs), scalar prefetch,
// input_output_aliases, a block-sparse matmul, and the run-time errors.

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

namespace {

using pl::dyn;
using pl::index_t;
using Matrix = pl::Array<float, dyn, dyn>;
using Matrix16 = pl::Array<pl::bfloat16, dyn, dyn>;

constexpr index_t cdiv(index_t a, index_t b) { return (a + b - 1) / b; }

// Small integers: every product and sum below stays exact in f32 (|sum| < 2^24), so the
// kernels must match the loop exactly, whatever their summation order.
Matrix small_ints(index_t rows, index_t cols, int salt) {
  return Matrix::generate([=](auto i, auto j) { return static_cast<float>((i * 7 + j * 3 + salt) % 11) - 5; }, rows,
                          cols);
}

// Values in [-1, 1) from a hash, rounded to bf16.
Matrix16 random_bf16(index_t rows, index_t cols, std::uint32_t salt) {
  return Matrix16::generate(
      [=](auto i, auto j) {
        std::uint32_t h = static_cast<std::uint32_t>(i) * 2654435761u ^ static_cast<std::uint32_t>(j) * 40503u ^ salt;
        h ^= h >> 15;
        h *= 2246822519u;
        h ^= h >> 13;
        return pl::bfloat16(static_cast<float>(h % 2048) / 1024.0f - 1.0f);
      },
      rows, cols);
}

// z = x @ y (or x @ y.T) in double, from whatever dtype the inputs hold; abs_sum gets
// sum_p |x_ip y_pj|.
template <class X, class Y>
std::vector<double> naive_matmul(X const& x, Y const& y, bool trans_b, std::vector<double>* abs_sum = nullptr) {
  index_t const m = x.extent(0), k = x.extent(1), n = trans_b ? y.extent(0) : y.extent(1);
  std::vector<double> const a(x.begin(), x.end());
  std::vector<double> b(static_cast<std::size_t>(k * n));  // (k, n) row-major
  for (index_t p = 0; p < k; ++p)
    for (index_t j = 0; j < n; ++j)
      b[static_cast<std::size_t>(p * n + j)] = static_cast<float>(trans_b ? y.data()[j * k + p] : y.data()[p * n + j]);
  std::vector<double> z(static_cast<std::size_t>(m * n), 0.0);
  if (abs_sum) abs_sum->assign(z.size(), 0.0);
  for (index_t i = 0; i < m; ++i)
    for (index_t p = 0; p < k; ++p) {
      double const av = a[static_cast<std::size_t>(i * k + p)];
      double const* brow = b.data() + p * n;
      double* zrow = z.data() + i * n;
      for (index_t j = 0; j < n; ++j) zrow[j] += av * brow[j];
      if (abs_sum) {
        double* srow = abs_sum->data() + i * n;
        for (index_t j = 0; j < n; ++j) srow[j] += av * brow[j] < 0 ? -(av * brow[j]) : av * brow[j];
      }
    }
  return z;
}

// Counts the elements of z that differ from the exact reference.
std::size_t mismatches(Matrix const& z, std::vector<double> const& ref) {
  std::size_t bad = 0;
  for (index_t e = 0; e < z.size(); ++e) bad += static_cast<double>(z.data()[e]) != ref[static_cast<std::size_t>(e)];
  return bad;
}

constexpr auto ij = [](auto i, auto j) { return pl::idx(i, j); };
constexpr auto x_map = [](auto i, auto, auto k) { return pl::idx(i, k); };
constexpr auto y_map = [](auto, auto j, auto k) { return pl::idx(k, j); };
constexpr auto yt_map = [](auto, auto j, auto k) { return pl::idx(j, k); };
constexpr auto z_map = [](auto i, auto j, auto) { return pl::idx(i, j); };
constexpr auto matmul_semantics =
    pltpu::compiler_params(pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::PARALLEL, pltpu::ARBITRARY>);

// matmul.md's first kernel: the f32 output block is the accumulator, zeroed at k == 0
// (output blocks are never loaded from HBM). M and N may be ragged; K must divide by BK.
template <int Cores, index_t BM, index_t BK, index_t BN>
Matrix matmul_f32(Matrix const& x, Matrix const& y) {
  index_t const m = x.extent(0), k = x.extent(1), n = y.extent(1);
  return pl::pallas_call(
      [](auto x_ref, auto y_ref, auto z_ref) {
        pl::when(pl::program_id(2) == 0, [&] { z_ref[pl::ellipsis] = pl::zeros_like(z_ref); });
        z_ref[pl::ellipsis] += pl::dot(x_ref[pl::ellipsis], y_ref[pl::ellipsis]);
      },
      pl::ShapeDtypeStruct<float, dyn, dyn>(m, n), pl::grid<dyn, dyn, dyn>(cdiv(m, BM), cdiv(n, BN), k / BK),
      pl::in_specs(pl::BlockSpec<BM, BK>(x_map), pl::BlockSpec<BK, BN>(y_map)),
      pl::out_specs(pl::BlockSpec<BM, BN>(z_map)), matmul_semantics, pltpu::num_cores<Cores>)(x, y);
}

struct identity_fn {
  template <class E>
  auto operator()(E&& e) const {
    return std::forward<E>(e);
  }
};
struct relu_fn {
  template <class E>
  auto operator()(E&& e) const {
    return pl::maximum(std::forward<E>(e), 0.0f);
  }
};

enum class rhs { plain, trans_b, dot_general };

// matmul.md's kernel with a scratch accumulator (PrefetchScalarGridSpec with
// num_scalar_prefetch=0): acc zeroed at k == 0, acc += dot(x, y) in f32, and at the last k
// the output block is activation(acc).astype(out dtype). With Rhs != plain, y is (n, k)
// and its blocks (bn, bk) are mapped by (j, k).
template <class Out, index_t BM, index_t BK, index_t BN, rhs Rhs = rhs::plain, class Act = identity_fn, class In>
pl::Array<Out, dyn, dyn> matmul_acc(pl::Array<In, dyn, dyn> const& x, pl::Array<In, dyn, dyn> const& y, Act = {}) {
  index_t const m = x.extent(0), k = x.extent(1), n = Rhs == rhs::plain ? y.extent(1) : y.extent(0);
  auto kernel = [](auto x_ref, auto y_ref, auto z_ref, auto acc_ref) {
    pl::when(pl::program_id(2) == 0, [&] { acc_ref[pl::ellipsis] = pl::zeros_like(acc_ref); });
    if constexpr (Rhs == rhs::plain)
      acc_ref[pl::ellipsis] += pl::dot(x_ref[pl::ellipsis], y_ref[pl::ellipsis], pl::preferred_element_type<float>);
    else if constexpr (Rhs == rhs::trans_b)
      acc_ref[pl::ellipsis] +=
          pl::dot(x_ref[pl::ellipsis], y_ref[pl::ellipsis], pl::trans_b, pl::preferred_element_type<float>);
    else
      acc_ref[pl::ellipsis] += pl::dot_general(x_ref[pl::ellipsis], y_ref[pl::ellipsis], pl::contracting_dims<1, 1>,
                                               pl::preferred_element_type<float>);
    pl::when(pl::program_id(2) == pl::num_programs(2) - 1,
             [&] { z_ref[pl::ellipsis] = pl::astype<Out>(Act{}(acc_ref[pl::ellipsis])); });
  };
  auto y_spec = [] {
    if constexpr (Rhs == rhs::plain)
      return pl::BlockSpec<BK, BN>(y_map);
    else
      return pl::BlockSpec<BN, BK>(yt_map);
  }();
  return pl::pallas_call(kernel, pl::ShapeDtypeStruct<Out, dyn, dyn>(m, n),
                         pl::grid<dyn, dyn, dyn>(cdiv(m, BM), cdiv(n, BN), k / BK), pltpu::num_scalar_prefetch<0>,
                         pl::in_specs(pl::BlockSpec<BM, BK>(x_map), y_spec),
                         pl::out_specs(pl::BlockSpec<BM, BN>(z_map)), pl::scratch_shapes<pltpu::VMEM<float, BM, BN>>,
                         matmul_semantics)(x, y);
}

// The index of the core running the calling kernel.
int core_index() { return pallas::detail::this_core("test").index; }

template <class R, class F>
void for_each_2d(R const& r, F&& f) {
  for (index_t i = 0; i < r.extent(0); ++i)
    for (index_t j = 0; j < r.extent(1); ++j) f(i, j);
}

// The number of elements (i, j) of a rank-2 array for which ok(i, j) is false.
template <class A, class F>
index_t count_bad(A const& a, F&& ok) {
  index_t bad = 0;
  for_each_2d(a.ref(), [&](index_t i, index_t j) { bad += !ok(i, j); });
  return bad;
}

}  // namespace

// ---------------------------------------------------------------------------------------
// Matmul

TEST_CASE("pallas_call matmul: f32, every (bm, bk, bn) in {128, 256}^3, ragged M and N, equals the loop exactly",
          "[pallas_call][matmul]") {
  auto run = [&]<index_t BM, index_t BK, index_t BN>() {
    // M and N a block and a bit (ragged), K two blocks; 2 cores (the v5p default).
    index_t const m = BM + 40, k = 2 * BK, n = BN + 24;
    INFO("blocks " << BM << ", " << BK << ", " << BN << "; shape " << m << " x " << k << " x " << n);
    auto const x = small_ints(m, k, 1);
    auto const y = small_ints(k, n, 2);
    auto const z = matmul_f32<2, BM, BK, BN>(x, y);
    CHECK(z.extent(0) == m);
    CHECK(z.extent(1) == n);
    CHECK(mismatches(z, naive_matmul(x, y, false)) == 0);
  };
  run.operator()<128, 128, 128>();
  run.operator()<128, 128, 256>();
  run.operator()<128, 256, 128>();
  run.operator()<128, 256, 256>();
  run.operator()<256, 128, 128>();
  run.operator()<256, 128, 256>();
  run.operator()<256, 256, 128>();
  run.operator()<256, 256, 256>();
}

TEST_CASE("pallas_call matmul: f32 on 1 and 4 cores, divisible and ragged shapes", "[pallas_call][matmul]") {
  struct shape3 {
    index_t m, k, n;
  };
  // (5 x 3 parallel points on 4 cores: ceil(15 / 4) = 4 each, the last core gets 3.)
  for (auto const s : {shape3{256, 256, 384}, shape3{600, 384, 300}, shape3{8, 128, 128}, shape3{130, 128, 700}}) {
    INFO("shape " << s.m << " x " << s.k << " x " << s.n);
    auto const x = small_ints(s.m, s.k, 3);
    auto const y = small_ints(s.k, s.n, 4);
    auto const ref = naive_matmul(x, y, false);
    CHECK(mismatches(matmul_f32<1, 128, 128, 128>(x, y), ref) == 0);
    CHECK(mismatches(matmul_f32<4, 128, 128, 256>(x, y), ref) == 0);
  }
}

TEST_CASE("pallas_call matmul: matmul.md's kernel on static shapes, checked whole at compile time",
          "[pallas_call][matmul]") {
  constexpr index_t m = 512, k = 384, n = 256, bm = 128, bk = 128, bn = 128;
  auto const x =
      pl::Array<float, m, k>::generate([](auto i, auto j) { return static_cast<float>((i + 2 * j) % 7) - 3; });
  auto const y =
      pl::Array<float, k, n>::generate([](auto i, auto j) { return static_cast<float>((3 * i + j) % 5) - 2; });
  auto matmul = pl::pallas_call(
      [](auto x_ref, auto y_ref, auto z_ref) {
        pl::when(pl::program_id(2) == 0, [&] { z_ref[pl::ellipsis] = pl::zeros_like(z_ref); });
        z_ref[pl::ellipsis] += pl::dot(x_ref[pl::ellipsis], y_ref[pl::ellipsis]);
      },
      pl::out_shape<pl::ShapeDtypeStruct<float, m, n>>, pl::grid<m / bm, n / bn, k / bk>,
      pl::in_specs(pl::BlockSpec<bm, bk>(x_map), pl::BlockSpec<bk, bn>(y_map)),
      pl::out_specs(pl::BlockSpec<bm, bn>(z_map)), matmul_semantics);
  pl::Array<float, m, n> const z = matmul(x, y);
  auto const ref = naive_matmul(x, y, false);
  std::size_t bad = 0;
  for (index_t e = 0; e < z.size(); ++e) bad += z.data()[e] != ref[static_cast<std::size_t>(e)];
  CHECK(bad == 0);
}

TEST_CASE("pallas_call matmul: bf16 inputs, f32 scratch accumulator, bf16 output written with astype at the last k",
          "[pallas_call][matmul]") {
  // Tolerance: the kernel accumulates exact bf16 x bf16 products in f32 and rounds once to
  // bf16, so |z - ref| <= 2^-8 |ref| (bf16's half ulp, doubled) + 1e-5 sum_p |x_ip y_pj|
  // (f32 accumulation) against the double-precision product of the same bf16 inputs.
  auto const x = random_bf16(264, 512, 11);
  auto const y = random_bf16(512, 256 + 56, 12);  // M and N ragged
  std::vector<double> abs_sum;
  auto const ref = naive_matmul(x, y, false, &abs_sum);
  auto bad = [&](Matrix16 const& z, bool relu) {
    std::size_t n = 0;
    for (index_t e = 0; e < z.size(); ++e) {
      auto const u = static_cast<std::size_t>(e);
      double const r = relu ? std::max(ref[u], 0.0) : ref[u];
      double const got = static_cast<float>(z.data()[e]);
      n += !(std::abs(got - r) <= std::ldexp(std::abs(r), -8) + 1e-5 * abs_sum[u]);
    }
    return n;
  };
  CHECK(bad(matmul_acc<pl::bfloat16, 128, 128, 128>(x, y), false) == 0);
  CHECK(bad(matmul_acc<pl::bfloat16, 256, 256, 128>(x, y), false) == 0);
  // The same product with a fused ReLU at the final write.
  CHECK(bad(matmul_acc<pl::bfloat16, 128, 128, 128>(x, y, relu_fn{}), true) == 0);
}

TEST_CASE("pallas_call matmul: f32 with a scratch accumulator, a fused ReLU, and a transposed RHS",
          "[pallas_call][matmul]") {
  auto const x = small_ints(256 + 16, 384, 5);
  auto const y = small_ints(384, 256, 6);
  auto const ref = naive_matmul(x, y, false);
  CHECK(mismatches(matmul_acc<float, 128, 128, 128>(x, y), ref) == 0);

  auto relu_ref = ref;
  for (auto& v : relu_ref) v = std::max(v, 0.0);
  auto const z_relu = matmul_acc<float, 128, 128, 128>(x, y, relu_fn{});
  CHECK(mismatches(z_relu, relu_ref) == 0);
  CHECK(std::count(z_relu.begin(), z_relu.end(), 0.0f) > 0);  // the ReLU did cut something

  // y.T is given as an (n, k) array; its (bn, bk) blocks are mapped by (j, k).
  auto const yt = Matrix::generate([&](auto j, auto p) { return y(p, j); }, y.extent(1), y.extent(0));
  CHECK(mismatches(matmul_acc<float, 128, 128, 128, rhs::trans_b>(x, yt), ref) == 0);
  CHECK(mismatches(matmul_acc<float, 128, 128, 128, rhs::dot_general>(x, yt), ref) == 0);
}

// ---------------------------------------------------------------------------------------
// Grid and BlockSpec

TEST_CASE("pallas_call: each output block records its program ids and the grid's extents", "[pallas_call][grid]") {
  using I32 = std::int32_t;
  auto const ids_extents = pl::pallas_call(
      [](auto id_ref, auto ext_ref) {
        id_ref[pl::ellipsis] = pl::full_like(id_ref, static_cast<I32>(10 * pl::program_id(0) + pl::program_id(1)));
        ext_ref[pl::ellipsis] =
            pl::full_like(ext_ref, static_cast<I32>(10 * pl::num_programs(0) + pl::num_programs(1)));
      },
      pl::out_shape<pl::ShapeDtypeStruct<I32, 2 * 8, 3 * 128>, pl::ShapeDtypeStruct<I32, 2 * 8, 3 * 128>>,
      pl::grid<2, 3>, pl::out_specs(pl::BlockSpec<8, 128>(ij), pl::BlockSpec<8, 128>(ij)),
      pltpu::compiler_params(pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::PARALLEL>))();
  auto const& ids = std::get<0>(ids_extents);
  auto const& extents = std::get<1>(ids_extents);
  CHECK(count_bad(ids, [&](index_t r, index_t c) { return ids(r, c) == 10 * (r / 8) + c / 128; }) == 0);
  CHECK(extents == pl::Array<I32, 2 * 8, 3 * 128>::full(23));
}

TEST_CASE("pallas_call: program_id<Axis>(grid) and num_programs<Axis>(grid) give the unchecked forms' values",
          "[pallas_call][grid]") {
  using I32 = std::int32_t;
  constexpr auto grid = pl::grid<2, 3>;
  auto const ids_extents = pl::pallas_call(
      [&](auto id_ref, auto ext_ref) {
        id_ref[pl::ellipsis] =
            pl::full_like(id_ref, static_cast<I32>(10 * pl::program_id<0>(grid) + pl::program_id<1>(grid)));
        ext_ref[pl::ellipsis] =
            pl::full_like(ext_ref, static_cast<I32>(10 * pl::num_programs<0>(grid) + pl::num_programs<1>(grid)));
      },
      pl::out_shape<pl::ShapeDtypeStruct<I32, 2 * 8, 3 * 128>, pl::ShapeDtypeStruct<I32, 2 * 8, 3 * 128>>, grid,
      pl::out_specs(pl::BlockSpec<8, 128>(ij), pl::BlockSpec<8, 128>(ij)))();
  auto const& ids = std::get<0>(ids_extents);
  CHECK(count_bad(ids, [&](index_t r, index_t c) { return ids(r, c) == 10 * (r / 8) + c / 128; }) == 0);
  CHECK(std::get<1>(ids_extents) == pl::Array<I32, 2 * 8, 3 * 128>::full(23));

  // A run-time extent: the rank is still the type's.
  auto const rows = pl::grid<dyn>(4);
  auto const steps = pl::pallas_call(
      [&](auto o_ref) {
        o_ref[pl::ellipsis] =
            pl::full_like(o_ref, static_cast<I32>(100 * pl::num_programs<0>(rows) + pl::program_id<0>(rows)));
      },
      pl::out_shape<pl::ShapeDtypeStruct<I32, 4 * 8, 128>>, rows,
      pl::out_specs(pl::BlockSpec<8, 128>([](auto i) { return pl::idx(i, 0); })))();
  CHECK(count_bad(steps, [&](index_t r, index_t) { return steps(r, 0) == 400 + r / 8; }) == 0);

  // A grid of another rank than the running one is a run-time error.
  auto const wrong = pl::pallas_call([&](auto o_ref) { o_ref(0, 0) = static_cast<I32>(pl::program_id<0>(grid)); },
                                     pl::out_shape<pl::ShapeDtypeStruct<I32, 8, 128>>, pl::grid<1>);
  CHECK_THROWS_WITH(wrong(), Catch::Contains("pallas::program_id: the grid given has rank 2 but the running grid has rank 1"));
}

TEST_CASE("pallas_call: each core runs a contiguous range of ceil(P / cores) flattened PARALLEL points, in order",
          "[pallas_call][grid][cores]") {
  using I32 = std::int32_t;
  // Grid (5, 3): axis 0 PARALLEL, axis 1 ARBITRARY. Two outputs, one block per grid point:
  // the core that ran it and the core's local step number.
  auto run = [&]<int Cores>() {
    std::array<std::atomic<int>, 4> steps{};
    auto const core_step = pl::pallas_call(
        [&steps](auto core_ref, auto step_ref) {
          int const c = core_index();
          core_ref[pl::ellipsis] = pl::full_like(core_ref, static_cast<I32>(c));
          step_ref[pl::ellipsis] = pl::full_like(step_ref, static_cast<I32>(steps[static_cast<std::size_t>(c)]++));
        },
        pl::out_shape<pl::ShapeDtypeStruct<I32, 5 * 8, 3 * 128>, pl::ShapeDtypeStruct<I32, 5 * 8, 3 * 128>>,
        pl::grid<5, 3>, pl::out_specs(pl::BlockSpec<8, 128>(ij), pl::BlockSpec<8, 128>(ij)),
        pltpu::compiler_params(pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::ARBITRARY>),
        pltpu::num_cores<Cores>)();
    auto const& core = std::get<0>(core_step);
    auto const& step = std::get<1>(core_step);
    index_t const per = cdiv(5, Cores);
    INFO(Cores << " cores");
    for (index_t i = 0; i < 5; ++i)
      for (index_t k = 0; k < 3; ++k) {
        CHECK(core(i * 8, k * 128) == i / per);
        CHECK(step(i * 8, k * 128) == (i % per) * 3 + k);
      }
    for (int c = 0; c < Cores; ++c)
      CHECK(steps[static_cast<std::size_t>(c)] == 3 * std::max<index_t>(0, std::min<index_t>(per, 5 - c * per)));
  };
  run.operator()<1>();
  run.operator()<2>();
  run.operator()<4>();  // ceil(5 / 4) = 2: cores 0 and 1 get two points, core 2 one, core 3 none

  // Two PARALLEL axes (3 x 3 = 9 points) and an ARBITRARY one on 4 cores: ceil(9 / 4) = 3
  // flattened points each, so core c runs rows (i, j) with 3i + j in [3c, 3c + 3).
  auto const core = pl::pallas_call(
      [](auto core_ref) { core_ref[pl::ellipsis] = pl::full_like(core_ref, static_cast<I32>(core_index())); },
      pl::out_shape<pl::ShapeDtypeStruct<I32, 3 * 8, 3 * 128>>, pl::grid<3, 3, 2>,
      pl::out_specs(pl::BlockSpec<8, 128>(z_map)), matmul_semantics, pltpu::num_cores<4>)();
  for (index_t i = 0; i < 3; ++i)
    for (index_t j = 0; j < 3; ++j) CHECK(core(i * 8, j * 128) == (3 * i + j) / 3);

  // Without dimension_semantics every axis is ARBITRARY: core 0 runs the whole grid.
  auto const serial = pl::pallas_call(
      [](auto core_ref) { core_ref[pl::ellipsis] = pl::full_like(core_ref, static_cast<I32>(core_index())); },
      pl::out_shape<pl::ShapeDtypeStruct<I32, 4 * 8, 128>>, pl::grid<4>,
      pl::out_specs(pl::BlockSpec<8, 128>([](auto i) { return pl::idx(i, 0); })), pltpu::num_cores<2>)();
  CHECK(serial == pl::Array<I32, 4 * 8, 128>::full(0));
}

TEST_CASE("pallas_call: ragged blocks get full-size refs, poisoned input padding, dropped output padding",
          "[pallas_call][grid]") {
  STATIC_REQUIRE(pl::checked_mode);
  using I32 = std::int32_t;
  constexpr index_t m = 300, n = 200;
  auto const x = pl::Array<float, m, n>::generate([](auto i, auto j) { return static_cast<float>(i * 1000 + j); });
  // o = 2x + 1 where the block is in bounds and -7 in its padding (which must be dropped:
  // a padding write landing in the array would leave a -7). nan counts the NaNs of each
  // input block.
  auto const o_nans = pl::pallas_call(
      [](auto x_ref, auto o_ref, auto nan_ref) {
        index_t const r0 = pl::program_id(0) * 128, c0 = pl::program_id(1) * 128;
        I32 count = 0;
        for_each_2d(o_ref, [&](index_t r, index_t c) {
          bool const inside = r0 + r < m && c0 + c < n;
          o_ref(r, c) = inside ? 2 * x_ref(r, c) + 1 : -7.0f;
          count += std::isnan(x_ref(r, c));
        });
        nan_ref[pl::ellipsis] = pl::full_like(nan_ref, count);
      },
      pl::out_shape<pl::ShapeDtypeStruct<float, m, n>, pl::ShapeDtypeStruct<I32, 3 * 8, 2 * 128>>, pl::grid<3, 2>,
      pl::in_specs(pl::BlockSpec<128, 128>(ij)), pl::out_specs(pl::BlockSpec<128, 128>(ij), pl::BlockSpec<8, 128>(ij)),
      pltpu::compiler_params(pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::PARALLEL>))(x);
  auto const& o = std::get<0>(o_nans);
  auto const& nans = std::get<1>(o_nans);
  CHECK(count_bad(o, [&](index_t r, index_t c) { return o(r, c) == 2 * x(r, c) + 1; }) == 0);
  for (index_t bi = 0; bi < 3; ++bi)
    for (index_t bj = 0; bj < 2; ++bj) {
      index_t const rows = std::min<index_t>(128, m - bi * 128), cols = std::min<index_t>(128, n - bj * 128);
      CHECK(nans(bi * 8, bj * 128) == 128 * 128 - rows * cols);
    }
}

TEST_CASE("pallas_call: an output block visited on consecutive steps keeps its buffer, the last write wins",
          "[pallas_call][grid]") {
  // Grid (2, 4); both outputs map (i, j) to block (i, 0). `last` is written at every step,
  // `once` only at j == 1: its buffer is neither reloaded nor written back until i changes.
  auto const last_once = pl::pallas_call(
      [](auto last_ref, auto once_ref) {
        auto const v = static_cast<float>(10 * pl::program_id(0) + pl::program_id(1));
        last_ref[pl::ellipsis] = pl::full_like(last_ref, v);
        pl::when(pl::program_id(1) == 1, [&] { once_ref[pl::ellipsis] = pl::full_like(once_ref, v); });
      },
      pl::out_shape<pl::ShapeDtypeStruct<float, 2 * 8, 128>, pl::ShapeDtypeStruct<float, 2 * 8, 128>>, pl::grid<2, 4>,
      pl::out_specs(pl::BlockSpec<8, 128>([](auto i, auto) { return pl::idx(i, 0); }),
                    pl::BlockSpec<8, 128>([](auto i, auto) { return pl::idx(i, 0); })),
      pltpu::compiler_params(pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::ARBITRARY>))();
  auto const& last = std::get<0>(last_once);
  auto const& once = std::get<1>(last_once);
  CHECK(count_bad(last, [&](index_t r, index_t c) { return last(r, c) == static_cast<float>(10 * (r / 8) + 3); }) == 0);
  CHECK(count_bad(once, [&](index_t r, index_t c) { return once(r, c) == static_cast<float>(10 * (r / 8) + 1); }) == 0);
}

TEST_CASE("pallas_call: squeezed dims take element indices and vanish from the ref, Element dims take offsets",
          "[pallas_call][blockspec]") {
  auto const x = pl::Array<float, 4, 16, 128>::generate(
      [](auto b, auto i, auto j) { return static_cast<float>(b * 10000 + i * 128 + j); });
  // x[b] (16, 128) goes to columns [128b, 128b + 128) of o, times b + 1, and to r[3 - b].
  auto const o_r = pl::pallas_call(
      [](auto x_ref, auto o_ref, auto r_ref) {
        static_assert(decltype(x_ref)::rank() == 2 && decltype(r_ref)::rank() == 2);
        o_ref[pl::ellipsis] = x_ref[pl::ellipsis] * static_cast<float>(pl::program_id(0) + 1);
        r_ref[pl::ellipsis] = x_ref[pl::ellipsis];
      },
      pl::out_shape<pl::ShapeDtypeStruct<float, 16, 4 * 128>, pl::ShapeDtypeStruct<float, 4, 16, 128>>, pl::grid<4>,
      pl::in_specs(pl::BlockSpec<pl::squeezed, 16, 128>([](auto b) { return pl::idx(b, 0, 0); })),
      pl::out_specs(pl::BlockSpec<16, 128>([](auto b) { return pl::idx(0, b); }),
                    pl::BlockSpec<pl::squeezed, 16, 128>([](auto b) { return pl::idx(3 - b, 0, 0); })),
      pltpu::compiler_params(pltpu::dimension_semantics<pltpu::PARALLEL>))(x);
  auto const& o = std::get<0>(o_r);
  auto const& r = std::get<1>(o_r);
  index_t bad = 0;
  for (index_t b = 0; b < 4; ++b)
    for (index_t i = 0; i < 16; ++i)
      for (index_t j = 0; j < 128; ++j)
        bad += o(i, b * 128 + j) != x(b, i, j) * static_cast<float>(b + 1) || r(3 - b, i, j) != x(b, i, j);
  CHECK(bad == 0);

  // Element(16) rows at element offset 8i: overlapping windows [8i, 8i + 16).
  auto const y = pl::Array<float, 72, 128>::generate([](auto i, auto j) { return static_cast<float>(i * 128 + j); });
  auto const s = pl::pallas_call(
      [](auto y_ref, auto o_ref) {
        for_each_2d(o_ref, [&](index_t i, index_t j) { o_ref(i, j) = y_ref(i, j) + y_ref(i + 8, j); });
      },
      pl::out_shape<pl::ShapeDtypeStruct<float, 64, 128>>, pl::grid<8>,
      pl::in_specs(pl::BlockSpec<pl::Element(16), 128>([](auto i) { return pl::idx(i * 8, 0); })),
      pl::out_specs(pl::BlockSpec<8, 128>([](auto i) { return pl::idx(i, 0); })))(y);
  CHECK(count_bad(s, [&](index_t i, index_t j) { return s(i, j) == y(i, j) + y(i + 8, j); }) == 0);
}

TEST_CASE("pallas_call: Buffered<1> and Buffered<3> operands give the double-buffered result",
          "[pallas_call][blockspec]") {
  auto const x = small_ints(512, 256, 7);
  auto const y = small_ints(512, 256, 8);
  auto add = [&](auto in_buf, auto out_buf) {
    return pl::pallas_call([](auto x_ref, auto y_ref,
                              auto o_ref) { o_ref[pl::ellipsis] = x_ref[pl::ellipsis] * 2.0f + y_ref[pl::ellipsis]; },
                           pl::like(x), pl::grid<dyn, dyn>(4, 2),
                           pl::in_specs(pl::BlockSpec<128, 128>(ij, in_buf), pl::BlockSpec<128, 128>(ij)),
                           pl::out_specs(pl::BlockSpec<128, 128>(ij, out_buf)),
                           pltpu::compiler_params(pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::ARBITRARY>))(x, y);
  };
  auto const expected = Matrix::generate([&](auto i, auto j) { return 2 * x(i, j) + y(i, j); }, 512, 256);
  CHECK(add(pl::Buffered<1>, pl::Buffered<1>) == expected);
  CHECK(add(pl::Buffered<3>, pl::Buffered<2>) == expected);
}

TEST_CASE("pallas_call: Buffered<1, RevisitMode::ANY> outputs may be revisited and see their earlier writes",
          "[pallas_call][blockspec]") {
  constexpr auto any = pl::Buffered<1, pl::RevisitMode::ANY>;
  // Grid (6,), block i % 3: first visits set i + 1, second visits add i + 1.
  auto const o = pl::pallas_call(
      [](auto o_ref) {
        auto const v = static_cast<float>(pl::program_id(0) + 1);
        if (pl::program_id(0) < 3)
          o_ref[pl::ellipsis] = pl::full_like(o_ref, v);
        else
          o_ref[pl::ellipsis] += v;
      },
      pl::out_shape<pl::ShapeDtypeStruct<float, 3 * 8, 128>>, pl::grid<6>,
      pl::out_specs(pl::BlockSpec<8, 128>([](auto i) { return pl::idx(i % 3, 0); }, any)))();
  CHECK(count_bad(o, [&](index_t r, index_t c) { return o(r, c) == static_cast<float>(2 * (r / 8) + 5); }) == 0);

  // Accumulating over revisits into an output aliased to zeros.
  auto const zeros = pl::Array<float, 3 * 8, 128>();
  auto const acc =
      pl::pallas_call([](auto, auto o_ref) { o_ref[pl::ellipsis] += static_cast<float>(pl::program_id(0) + 1); },
                      pl::like(zeros), pl::grid<dyn>(9), pl::in_specs(pl::BlockSpec<8, 128>()),
                      pl::out_specs(pl::BlockSpec<8, 128>([](auto i) { return pl::idx(i % 3, 0); }, any)),
                      pl::input_output_aliases<pl::alias{0, 0}>)(zeros);
  CHECK(count_bad(acc, [&](index_t r, index_t c) {
          auto const b = r / 8;
          return acc(r, c) == static_cast<float>((b + 1) + (b + 4) + (b + 7));
        }) == 0);
}

TEST_CASE("pallas_call: dynamic grids and run-time array extents", "[pallas_call][grid]") {
  using Rows = pl::Array<float, dyn, 128>;
  for (index_t blocks : {1, 3, 7}) {
    auto const x = Rows::generate([](auto i, auto j) { return static_cast<float>(i * 3 + j); }, blocks * 8);
    auto const o = pl::pallas_call(
        [](auto x_ref, auto o_ref) {
          o_ref[pl::ellipsis] = x_ref[pl::ellipsis] + static_cast<float>(pl::program_id(0));
        },
        pl::like(x), pl::grid<dyn>(blocks), pl::in_specs(pl::BlockSpec<8, 128>([](auto i) { return pl::idx(i, 0); })),
        pl::out_specs(pl::BlockSpec<8, 128>([](auto i) { return pl::idx(i, 0); })),
        pltpu::compiler_params(pltpu::dimension_semantics<pltpu::PARALLEL>))(x);
    INFO(blocks << " blocks");
    CHECK(count_bad(o, [&](index_t r, index_t c) { return o(r, c) == x(r, c) + static_cast<float>(r / 8); }) == 0);
  }
}

TEST_CASE("pallas_call: without specs every operand is one whole-array VMEM block", "[pallas_call][blockspec]") {
  // (Whole-array blocks need static shapes: block shapes are always static.)
  using A = pl::Array<float, 16, 256>;
  auto const x = A::generate([](auto i, auto j) { return static_cast<float>(i * 256 + j); });
  auto const y = A::generate([](auto i, auto j) { return static_cast<float>(i - j); });
  // No grid: the kernel runs once on whole arrays.
  auto const once = pl::pallas_call(
      [](auto x_ref, auto y_ref, auto o_ref) { o_ref[pl::ellipsis] = x_ref[pl::ellipsis] - y_ref[pl::ellipsis]; },
      pl::like(x))(x, y);
  CHECK(once == A::generate([&](auto i, auto j) { return x(i, j) - y(i, j); }));

  // A grid without specs: every step sees the whole arrays; the output is written back once,
  // after the last step.
  std::atomic<int> calls{0};
  auto const o = pl::pallas_call(
      [&calls](auto x_ref, auto o_ref) {
        ++calls;
        o_ref[pl::ellipsis] = x_ref[pl::ellipsis] * static_cast<float>(pl::program_id(0));
      },
      pl::out_shape<pl::ShapeDtypeStruct<float, 16, 128>>, pl::grid<3>)(pl::Array<float, 16, 128>::full(1.5f));
  CHECK(calls == 3);
  CHECK(o == pl::Array<float, 16, 128>::full(3.0f));

  // pl::BlockSpec<>() spelled out: a whole-array operand next to blocked ones.
  auto const bias = pl::Array<float, 8, 128>::generate([](auto i, auto j) { return static_cast<float>(i - j); });
  auto const row_map = [](auto i) { return pl::idx(i, 0); };
  auto const biased = pl::pallas_call(
      [](auto x_ref, auto b_ref, auto o_ref) { o_ref[pl::ellipsis] = x_ref[pl::ellipsis] + b_ref[pl::ellipsis]; },
      pl::like(x), pl::grid<2>, pl::in_specs(pl::BlockSpec<8, 256>(row_map), pl::BlockSpec<>()),
      pl::out_specs(pl::BlockSpec<8, 256>(row_map)))(
      x, pl::Array<float, 8, 256>::generate([&](auto i, auto j) { return bias(i, j % 128); }));
  CHECK(count_bad(biased, [&](index_t r, index_t c) { return biased(r, c) == x(r, c) + bias(r % 8, c % 128); }) == 0);
}

TEST_CASE("pallas_call: BlockSpec<>(in_memory<ANY>) hands the kernel the raw HBM ref", "[pallas_call][blockspec]") {
  auto const x = pl::Array<float, 4 * 8, 128>::generate([](auto i, auto j) { return static_cast<float>(i * 128 + j); });
  // Input and output raw; the kernel copies block i in, doubles it and copies it out to
  // block 3 - i, through a VMEM scratch.
  auto const o = pl::pallas_call(
      [](auto x_any, auto o_any, auto scratch) {
        static_assert(decltype(x_any)::space == pl::ANY || decltype(x_any)::space == pl::memory_space::hbm);
        static_assert(decltype(x_any)::rank() == 2 && decltype(x_any)::shape_type::static_extent(0) == 32);
        auto const i = pl::program_id(0);
        pltpu::sync_copy(x_any.at(pl::ds<8>(i * 8)), scratch);
        scratch[pl::ellipsis] = scratch[pl::ellipsis] * 2.0f;
        pltpu::sync_copy(scratch, o_any.at(pl::ds<8>((3 - i) * 8)));
      },
      pl::like(x), pl::grid<4>, pl::in_specs(pl::BlockSpec<>(pl::in_memory<pl::ANY>)),
      pl::out_specs(pl::BlockSpec<>(pl::in_memory<pl::ANY>)), pl::scratch_shapes<pltpu::VMEM<float, 8, 128>>,
      pltpu::compiler_params(pltpu::dimension_semantics<pltpu::PARALLEL>))(x);
  CHECK(count_bad(o, [&](index_t r, index_t c) { return o(r, c) == 2 * x((3 - r / 8) * 8 + r % 8, c); }) == 0);
}

// ---------------------------------------------------------------------------------------
// Scalar prefetch and aliases

TEST_CASE("pallas_call: scalar-prefetch arrays go to SMEM, index maps and the kernel read them",
          "[pallas_call][prefetch]") {
  using I32 = std::int32_t;
  auto const order = pl::Array<I32, 5>{3, 0, 4, 4, 1};
  auto const x = pl::Array<float, 5 * 8, 128>::generate([](auto i, auto j) { return static_cast<float>(i * 128 + j); });
  // o block i = x block order[i] + 100 * order[i] (a gather by prefetched block index).
  auto const o = pl::pallas_call(
      [](auto order_ref, auto x_ref, auto o_ref) {
        static_assert(decltype(order_ref)::space == pl::memory_space::smem);
        o_ref[pl::ellipsis] = x_ref[pl::ellipsis] + static_cast<float>(100 * order_ref[pl::program_id(0)]);
      },
      pl::out_shape<pl::ShapeDtypeStruct<float, 5 * 8, 128>>, pl::grid<5>, pltpu::num_scalar_prefetch<1>,
      pl::in_specs(pl::BlockSpec<8, 128>([](auto i, auto order_ref) { return pl::idx(order_ref[i], 0); })),
      pl::out_specs(pl::BlockSpec<8, 128>([](auto i, auto) { return pl::idx(i, 0); })),
      pltpu::compiler_params(pltpu::dimension_semantics<pltpu::PARALLEL>))(order, x);
  CHECK(count_bad(o, [&](index_t r, index_t c) {
          index_t const src = order(r / 8);
          return o(r, c) == x(src * 8 + r % 8, c) + static_cast<float>(100 * src);
        }) == 0);
}

TEST_CASE("pallas_call: a 2-D scalar-prefetch array of run-time length drives a 2-D gather",
          "[pallas_call][prefetch]") {
  using I32 = std::int32_t;
  auto const x =
      pl::Array<float, 3 * 8, 2 * 128>::generate([](auto i, auto j) { return static_cast<float>(i * 256 + j); });
  auto const coords = pl::Array<I32, dyn, 2>::from(std::vector<I32>{2, 1, 0, 0, 1, 1, 2, 0}, 4);
  // Output block q (of 4, along the columns) = x block (coords[q][0], coords[q][1]).
  auto const o =
      pl::pallas_call([](auto, auto x_ref, auto o_ref) { o_ref[pl::ellipsis] = x_ref[pl::ellipsis]; },
                      pl::out_shape<pl::ShapeDtypeStruct<float, 8, 4 * 128>>, pl::grid<dyn>(coords.extent(0)),
                      pltpu::num_scalar_prefetch<1>,
                      pl::in_specs(pl::BlockSpec<8, 128>([](auto q, auto c) { return pl::idx(c(q, 0), c(q, 1)); })),
                      pl::out_specs(pl::BlockSpec<8, 128>([](auto q, auto) { return pl::idx(0, q); })))(coords, x);
  CHECK(count_bad(o, [&](index_t r, index_t c) {
          index_t const q = c / 128;
          return o(r, c) == x(coords(q, 0) * 8 + r, coords(q, 1) * 128 + c % 128);
        }) == 0);
}

TEST_CASE("pallas_call: input_output_aliases: blocks the grid never writes keep the input's data",
          "[pallas_call][aliases]") {
  using I32 = std::int32_t;
  auto const x = pl::Array<float, 6 * 8, 128>::generate([](auto i, auto j) { return static_cast<float>(i * 128 + j); });
  // Blocks 1 and 4 (scalar-prefetched) are scaled by 10; input 1 (x, counting the prefetch
  // argument) is output 0.
  auto const visit = pl::Array<I32, 2>{1, 4};
  auto const map = [](auto i, auto visit_ref) { return pl::idx(visit_ref[i], 0); };
  auto const o =
      pl::pallas_call([](auto, auto x_ref, auto o_ref) { o_ref[pl::ellipsis] = x_ref[pl::ellipsis] * 10.0f; },
                      pl::like(x), pl::grid<2>, pltpu::num_scalar_prefetch<1>, pl::in_specs(pl::BlockSpec<8, 128>(map)),
                      pl::out_specs(pl::BlockSpec<8, 128>(map)), pl::input_output_aliases<pl::alias{1, 0}>,
                      pltpu::compiler_params(pltpu::dimension_semantics<pltpu::PARALLEL>))(visit, x);
  CHECK(count_bad(o, [&](index_t r, index_t c) {
          bool const visited = r / 8 == 1 || r / 8 == 4;
          return o(r, c) == static_cast<float>(visited ? 10 : 1) * x(r, c);
        }) == 0);
  CHECK(x(8, 0) == 1024.0f);  // the caller's input is untouched
}

TEST_CASE("pallas_call: block-sparse (DSD) matmul with prefetched block coordinates and an aliased zero output",
          "[pallas_call][prefetch][aliases]") {
  using I32 = std::int32_t;
  constexpr index_t M = 4 * 128, K = 3 * 128, N = 2 * 128, b = 128;
  // A's nonzero blocks (row, col), sorted by row, with their data stacked (nnz, b, b).
  std::vector<std::array<I32, 2>> const coords{{0, 0}, {0, 2}, {2, 1}, {3, 0}, {3, 1}, {3, 2}};
  constexpr index_t nnz = 6;
  pl::Array<I32, nnz> rows, cols;
  for (index_t q = 0; q < nnz; ++q) {
    rows(q) = coords[static_cast<std::size_t>(q)][0];
    cols(q) = coords[static_cast<std::size_t>(q)][1];
  }
  auto const blocks = pl::Array<float, nnz, b, b>::generate(
      [](auto q, auto i, auto j) { return static_cast<float>((q * 3 + i + 2 * j) % 7) - 3; });
  auto const dense_b =
      pl::Array<float, K, N>::generate([](auto i, auto j) { return static_cast<float>((i + j) % 5) - 2; });
  auto const zeros = pl::Array<float, M, N>();

  auto const o = pl::pallas_call(
      [](auto rows_ref, auto, auto a_ref, auto b_ref, auto, auto o_ref, auto acc) {
        auto const q = pl::program_id(1);
        bool const first = q == 0 || rows_ref[q] != rows_ref[q - 1];
        bool const last = q == pl::num_programs(1) - 1 || rows_ref[q] != rows_ref[q + 1];
        pl::when(first, [&] { acc[pl::ellipsis] = pl::zeros_like(acc); });
        acc[pl::ellipsis] += pl::dot(a_ref[pl::ellipsis], b_ref[pl::ellipsis]);
        pl::when(last, [&] { o_ref[pl::ellipsis] = acc[pl::ellipsis]; });
      },
      pl::like(zeros), pl::grid<N / b, nnz>, pltpu::num_scalar_prefetch<2>,
      pl::in_specs(pl::BlockSpec<pl::squeezed, b, b>([](auto, auto q, auto, auto) { return pl::idx(q, 0, 0); }),
                   pl::BlockSpec<b, b>([](auto j, auto q, auto, auto cols_ref) { return pl::idx(cols_ref[q], j); }),
                   pl::BlockSpec<b, b>([](auto j, auto q, auto rows_ref, auto) { return pl::idx(rows_ref[q], j); })),
      pl::out_specs(pl::BlockSpec<b, b>([](auto j, auto q, auto rows_ref, auto) { return pl::idx(rows_ref[q], j); })),
      pl::scratch_shapes<pltpu::VMEM<float, b, b>>, pl::input_output_aliases<pl::alias{4, 0}>,
      pltpu::compiler_params(pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::ARBITRARY>))(rows, cols, blocks,
                                                                                             dense_b, zeros);
  // The dense A, and its product with B by a loop.
  pl::Array<float, M, K> a;
  for (index_t q = 0; q < nnz; ++q)
    for (index_t i = 0; i < b; ++i)
      for (index_t j = 0; j < b; ++j) a(rows(q) * b + i, cols(q) * b + j) = blocks(q, i, j);
  auto const ref = naive_matmul(a, dense_b, false);
  std::size_t bad = 0;
  for (index_t e = 0; e < o.size(); ++e) bad += o.data()[e] != ref[static_cast<std::size_t>(e)];
  CHECK(bad == 0);
  // Block row 1 of A is empty: its output rows stay the aliased zeros.
  CHECK(count_bad(o, [&](index_t i, index_t j) { return i / b != 1 || o(i, j) == 0.0f; }) == 0);
}

// ---------------------------------------------------------------------------------------
// Run-time errors

TEST_CASE("pallas_call: a block index out of range names the operand and the grid point", "[pallas_call][errors]") {
  auto const x = pl::Array<float, 4 * 8, 128>();
  auto call = [&](index_t steps) {
    return pl::pallas_call([](auto x_ref, auto o_ref) { o_ref[pl::ellipsis] = x_ref[pl::ellipsis]; },
                           pl::out_shape<pl::ShapeDtypeStruct<float, 8, 128>>, pl::grid<dyn>(steps),
                           pl::in_specs(pl::BlockSpec<8, 128>([](auto i) { return pl::idx(i, 0); })),
                           pl::out_specs(pl::BlockSpec<8, 128>([](auto) { return pl::idx(0, 0); })))(x);
  };
  CHECK_NOTHROW(call(4));
  CHECK_THROWS_AS(call(5), pl::index_error);
  CHECK_THROWS_WITH(call(5), Catch::Contains("pallas::pallas_call: in_specs[0] maps grid point (4,) to block index "
                                             "(4, 0), whose dimension 0 starts at element 32, outside the array's "
                                             "extent 32"));
  CHECK_THROWS_WITH(call(0), Catch::Contains("grid axis 0 has extent 0"));
}

TEST_CASE("pallas_call: revisiting an output block after another one is a run-time error on dynamic grids",
          "[pallas_call][errors]") {
  auto call = [&](index_t steps) {
    return pl::pallas_call([](auto o_ref) { o_ref[pl::ellipsis] = pl::zeros_like(o_ref); },
                           pl::out_shape<pl::ShapeDtypeStruct<float, 2 * 8, 128>>, pl::grid<dyn>(steps),
                           pl::out_specs(pl::BlockSpec<8, 128>([](auto i) { return pl::idx(i % 2, 0); })))();
  };
  CHECK_NOTHROW(call(2));
  CHECK_THROWS_WITH(call(3), Catch::Contains("pallas::pallas_call: out_specs[0] revisits block (0, 0) at grid point "
                                             "(2,) after writing other blocks"));

  // Two cores writing one block.
  auto shared = [&](index_t steps) {
    return pl::pallas_call([](auto o_ref) { o_ref[pl::ellipsis] = pl::zeros_like(o_ref); },
                           pl::out_shape<pl::ShapeDtypeStruct<float, 8, 128>>, pl::grid<dyn>(steps),
                           pl::out_specs(pl::BlockSpec<8, 128>([](auto) { return pl::idx(0, 0); })),
                           pltpu::compiler_params(pltpu::dimension_semantics<pltpu::PARALLEL>), pltpu::num_cores<2>)();
  };
  CHECK_NOTHROW(shared(1));
  CHECK_THROWS_WITH(shared(2), Catch::Contains("out_specs[0] block (0, 0) is written by core 0 and core 1"));
}

TEST_CASE("pallas_call: errors inside the kernel name the core and grid point, aliased shapes must agree",
          "[pallas_call][errors]") {
  auto const x = pl::Array<float, 3 * 8, 128>();
  auto bad_kernel = pl::pallas_call(
      [](auto x_ref, auto o_ref) {
        o_ref[pl::ellipsis] = x_ref[pl::ellipsis];
        if (pl::program_id(0) == 2) o_ref(8, 0) = 1.0f;  // row 8 of an (8, 128) block
      },
      pl::like(x), pl::grid<3>, pl::in_specs(pl::BlockSpec<8, 128>([](auto i) { return pl::idx(i, 0); })),
      pl::out_specs(pl::BlockSpec<8, 128>([](auto i) { return pl::idx(i, 0); })),
      pltpu::compiler_params(pltpu::dimension_semantics<pltpu::PARALLEL>), pltpu::num_cores<2>);
  CHECK_THROWS_AS(bad_kernel(x), pl::index_error);
  CHECK_THROWS_WITH(bad_kernel(x), Catch::Contains("core 1") && Catch::Contains("grid point (2,)"));

  using Rows = pl::Array<float, dyn, 128>;
  auto const y = Rows(16);
  auto aliased = [&](index_t rows) {
    return pl::pallas_call([](auto, auto o_ref) { o_ref[pl::ellipsis] = pl::zeros_like(o_ref); },
                           pl::ShapeDtypeStruct<float, dyn, 128>(rows), pl::grid<1>,
                           pl::in_specs(pl::BlockSpec<8, 128>()), pl::out_specs(pl::BlockSpec<8, 128>()),
                           pl::input_output_aliases<pl::alias{0, 0}>)(y);
  };
  CHECK(aliased(16)(8, 0) == 0.0f);
  CHECK_THROWS_AS(aliased(24), pl::shape_error);
  CHECK_THROWS_WITH(aliased(24), Catch::Contains("input 0 of shape") && Catch::Contains("is aliased to output 0"));
}
