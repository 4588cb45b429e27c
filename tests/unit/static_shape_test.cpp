// `x.shape[0]` as in Python, usable in constant expressions for refs, arrays and blocks of
// static shape: `pl::grid<x_hbm.shape[0] / 128, ...>` ports `grid=(x_hbm.shape[0] // 128,
// ...)` line by line. Checked with static_assert, and by running an emit_pipeline and a
// pallas_call whose grids come from their operands' shapes against naive loops.
#include <catch2/catch.hpp>

#include <cstdint>
#include <type_traits>

#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

namespace {

using pl::index_t;

// Static shapes: every spelling is a constant expression.
constexpr bool static_spellings() {
  using A = pl::Array<float, 256, 384>;
  static_assert(A::shape[0] == 256 && A::shape[1] == 384 && A::shape[-1] == 384 && A::shape[-2] == 256);
  static_assert(A::shape().size() == 256 * 384);
  using R = pl::Ref<float, pl::shape<8, 16, 128>, pl::memory_space::vmem>;
  R r;
  static_assert(r.shape[0] == 8 && r.shape[1] == 16 && r.shape[2] == 128 && r.shape[-3] == 8);
  static_assert(decltype(r)::shape[2] == 128 && r.shape()[1] == 16);
  pl::ShapeDtypeStruct<float, 64, 32> sds;
  static_assert(sds.shape[0] == 64 && sds.shape[-1] == 32);
  static_assert(pl::block<float, pl::shape<8, 128>>::shape[1] == 128);
  // A static shape costs nothing: a static ref is one pointer.
  static_assert(sizeof(R) == sizeof(float*));
  return true;
}
static_assert(static_spellings());

template <index_t N>
constexpr index_t as_template_argument = N;

/// x is a reference here: its type names the static shape.
template <class X>
constexpr index_t rows_of(X const& x) {
  (void)x;
  return as_template_argument<std::remove_cvref_t<decltype(x)>::shape[0]>;
}

}  // namespace

TEST_CASE("x.shape[i] of refs, arrays and blocks of static shape is a constant expression",
          "[shape]") {
  pl::Array<float, 256, 384> x;
  CHECK(as_template_argument<x.shape[0] / 128> == 2);
  auto const xr = x.ref();  // x.ref().shape would evaluate x.ref(): name an object
  CHECK(as_template_argument<xr.shape[1] / 128> == 3);
  CHECK(rows_of(x) == 256);
  auto const sub = xr.at(pl::ds<64>(pl::c<128>), 3);  // a static slice and an index
  static_assert(sub.shape[0] == 64 && decltype(sub)::shape_type::rank() == 1);
  pl::block<std::int32_t, pl::shape<8, 128>> b;
  CHECK(as_template_argument<b.shape[-1]> == 128);
  CHECK(b.shape()[0] == 8);
}

TEST_CASE("x.shape()[i] of run-time shapes, negative indices, out of range", "[shape]") {
  pl::Array<float, pl::dyn, 128> y(7);
  CHECK(y.shape()[0] == 7);
  CHECK(y.shape()[-1] == 128);
  CHECK(y.ref().shape()[-2] == 7);
  CHECK(y.ref().at(pl::ds(2, 3)).shape()[0] == 3);
  CHECK_THROWS_AS(y.shape()[2], pl::shape_error);
  CHECK_THROWS_AS(y.shape()[-3], pl::shape_error);
  CHECK_THROWS_WITH(y.shape()[2], Catch::Contains("dimension 2 is out of range for rank 2"));
}

TEST_CASE("an emit_pipeline grid from the operands' shapes: pl::grid<x_hbm.shape[0] / 128, ...>",
          "[shape][pipeline]") {
  auto x = pl::Array<float, 256, 384>::generate([](auto i, auto j) { return static_cast<float>((i * 3 + j) % 17); });
  auto k = pl::kernel(pl::like(x), pl::mesh<pltpu::TensorCoreMesh<"core">>)([](auto x_hbm, auto o_hbm) {
    pltpu::emit_pipeline(
        [](auto x_vmem, auto o_vmem) { o_vmem[pl::ellipsis] = x_vmem[pl::ellipsis] * 2 + 1; },
        pl::grid<x_hbm.shape[0] / 128, decltype(o_hbm)::shape[1] / 128>,
        pl::in_specs(pl::BlockSpec<128, 128>([](auto i, auto j) { return pl::idx(i, j); })),
        pl::out_specs(pl::BlockSpec<128, 128>([](auto i, auto j) { return pl::idx(i, j); })),
        pltpu::core_axis_name<"core">, pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::ARBITRARY>)(x_hbm,
                                                                                                   o_hbm);
  });
  auto const o = k(x);
  int wrong = 0;
  for (index_t i = 0; i < 256; ++i)
    for (index_t j = 0; j < 384; ++j) wrong += o(i, j) != x(i, j) * 2 + 1;  // every block written
  CHECK(wrong == 0);
}

TEST_CASE("a pallas_call grid from an array's shape: pl::grid<x.shape[0] / bm>", "[shape][pallas_call]") {
  constexpr index_t bm = 64;
  auto const x = pl::Array<float, 320, 128>::generate([](auto i, auto j) { return static_cast<float>(i - j); });
  auto const o = pl::pallas_call(
      [](auto x_ref, auto o_ref) { o_ref[pl::ellipsis] = pl::abs(x_ref[pl::ellipsis]); },
      pl::out_shape<pl::ShapeDtypeStruct<float, x.shape[0], x.shape[1]>>, pl::grid<x.shape[0] / bm>,
      pl::in_specs(pl::BlockSpec<bm, x.shape[1]>([](auto i) { return pl::idx(i, 0); })),
      pl::out_specs(pl::BlockSpec<bm, x.shape[1]>([](auto i) { return pl::idx(i, 0); })))(x);
  int wrong = 0;
  for (index_t i = 0; i < 320; ++i)
    for (index_t j = 0; j < 128; ++j) wrong += o(i, j) != (i >= j ? static_cast<float>(i - j) : static_cast<float>(j - i));
  CHECK(wrong == 0);
}
