// Inputs are read-only: pl::kernel and pallas_call hand the kernel its inputs' HBM refs as
// refs of const elements (writing one fails to compile: tests/compile_fail/kernel_input_*,
// pallas_call_input_any_write, pipeline_output_is_input), except a raw input aliased to an
// output, which is that output's buffer. VMEM blocks of inputs stay writable, as in
// Pallas, and writing them never reaches the caller's arrays.
#include <pallas/pallas.hpp>

#include <type_traits>

#include <catch2/catch.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;
using pl::index_t;

namespace {

template <class R>
constexpr bool read_only = std::is_const_v<typename R::value_type>;

using A = pl::Array<float, 16, 128>;

A iota_rows() {
  return A::generate([](auto i, auto j) { return static_cast<float>(i * 1000 + j); });
}

}  // namespace

TEST_CASE("inputs: pl::kernel hands inputs as read-only HBM refs, outputs and scratch writable", "[inputs][kernel]") {
  A const x = iota_rows();
  auto k = pl::kernel(pl::like(x), pl::mesh<pltpu::TensorCoreMesh<"core", 2>>,
                      pl::scratch_types<pltpu::VMEM<float, 8, 128>>)([](auto x_hbm, auto o_hbm, auto vmem) {
    static_assert(read_only<decltype(x_hbm)> && decltype(x_hbm)::space == pl::memory_space::hbm);
    static_assert(std::is_same_v<std::remove_cv_t<typename decltype(x_hbm)::value_type>, float>);
    static_assert(read_only<decltype(x_hbm.at(pl::ds<8>(0)))>);  // views of it too
    static_assert(!read_only<decltype(o_hbm)> && !read_only<decltype(vmem)>);
    index_t const c = pl::axis_index<"core">();
    pltpu::sync_copy(x_hbm.at(pl::ds<8>(c * 8)), vmem);
    vmem[pl::ellipsis] = vmem[pl::ellipsis] * 2.0f;  // the VMEM copy is the kernel's own
    pltpu::sync_copy(vmem, o_hbm.at(pl::ds<8>(c * 8)));
  });
  A const o = k(x);
  A const fresh = iota_rows();
  for (index_t i = 0; i < 16; ++i)
    for (index_t j = 0; j < 128; ++j) {
      REQUIRE(o(i, j) == 2 * fresh(i, j));
      REQUIRE(x(i, j) == fresh(i, j));
    }
}

TEST_CASE("inputs: emit_pipeline's input blocks are writable, and writing them leaves the caller's array alone",
          "[inputs][pipeline]") {
  A const x = iota_rows();
  auto k = pl::kernel(pl::like(x), pl::mesh<pltpu::TensorCoreMesh<"core", 1>>)([](auto x_hbm, auto o_hbm) {
    auto map = [](auto i) { return pl::idx(i, 0); };
    pltpu::emit_pipeline(
        [](auto xv, auto ov) {
          static_assert(!read_only<decltype(xv)> && decltype(xv)::space == pl::memory_space::vmem);
          xv(0, 0) = -1.0f;
          xv[pl::ellipsis] = xv[pl::ellipsis] + 1.0f;
          ov[pl::ellipsis] = xv[pl::ellipsis];
        },
        pl::grid<2>, pl::in_specs(pl::BlockSpec<8, 128>(map)), pl::out_specs(pl::BlockSpec<8, 128>(map)))(x_hbm,
                                                                                                            o_hbm);
  });
  A const o = k(x);
  A const fresh = iota_rows();
  for (index_t i = 0; i < 16; ++i)
    for (index_t j = 0; j < 128; ++j) {
      REQUIRE(o(i, j) == (i % 8 == 0 && j == 0 ? 0.0f : fresh(i, j) + 1.0f));
      REQUIRE(x(i, j) == fresh(i, j));
    }
}

TEST_CASE("inputs: pallas_call's blocked inputs are writable VMEM blocks, raw inputs read-only unless aliased",
          "[inputs][pallas_call]") {
  A const x = iota_rows();
  A const fresh = iota_rows();
  SECTION("a blocked input: the block is the kernel's, the caller's array is untouched") {
    auto map = [](auto i) { return pl::idx(i, 0); };
    A const o = pl::pallas_call(
        [](auto x_ref, auto o_ref) {
          static_assert(!read_only<decltype(x_ref)> && decltype(x_ref)::space == pl::memory_space::vmem);
          x_ref[pl::ellipsis] = x_ref[pl::ellipsis] * 3.0f;
          o_ref[pl::ellipsis] = x_ref[pl::ellipsis];
        },
        pl::like(x), pl::grid<2>, pl::in_specs(pl::BlockSpec<8, 128>(map)), pl::out_specs(pl::BlockSpec<8, 128>(map)),
        pltpu::dimension_semantics<pltpu::PARALLEL>)(x);
    for (index_t i = 0; i < 16; ++i)
      for (index_t j = 0; j < 128; ++j) {
        REQUIRE(o(i, j) == 3 * fresh(i, j));
        REQUIRE(x(i, j) == fresh(i, j));
      }
  }
  SECTION("a raw input is read-only") {
    A const o = pl::pallas_call(
        [](auto x_any, auto o_any, auto vmem) {
          static_assert(read_only<decltype(x_any)> && !read_only<decltype(o_any)>);
          pltpu::sync_copy(x_any.at(pl::ds<8>(8)), vmem);
          pltpu::sync_copy(vmem, o_any.at(pl::ds<8>(0)));
          pltpu::sync_copy(x_any.at(pl::ds<8>(0)), vmem);
          pltpu::sync_copy(vmem, o_any.at(pl::ds<8>(8)));
        },
        pl::like(x), pl::in_specs(pl::BlockSpec<>(pl::in_memory<pl::ANY>)),
        pl::out_specs(pl::BlockSpec<>(pl::in_memory<pl::ANY>)), pl::scratch_shapes<pltpu::VMEM<float, 8, 128>>,
        pltpu::num_cores<1>)(x);
    for (index_t i = 0; i < 16; ++i)
      for (index_t j = 0; j < 128; ++j) REQUIRE(o(i, j) == fresh((i + 8) % 16, j));
  }
  SECTION("a raw input aliased to an output is that output's buffer: writes land in the output, not the caller's") {
    A const o = pl::pallas_call(
        [](auto x_any, auto o_any, auto vmem) {
          static_assert(!read_only<decltype(x_any)> && !read_only<decltype(o_any)>);
          REQUIRE(x_any.data() == o_any.data());  // one buffer, as on a TPU
          pltpu::sync_copy(x_any.at(pl::ds<8>(0)), vmem);
          vmem[pl::ellipsis] = vmem[pl::ellipsis] + 0.5f;
          pltpu::sync_copy(vmem, x_any.at(pl::ds<8>(8)));  // through the input's ref
        },
        pl::like(x), pl::in_specs(pl::BlockSpec<>(pl::in_memory<pl::ANY>)),
        pl::out_specs(pl::BlockSpec<>(pl::in_memory<pl::ANY>)), pl::scratch_shapes<pltpu::VMEM<float, 8, 128>>,
        pltpu::num_cores<1>, pl::input_output_aliases<pl::alias{0, 0}>)(x);
    for (index_t i = 0; i < 16; ++i)
      for (index_t j = 0; j < 128; ++j) {
        REQUIRE(o(i, j) == (i < 8 ? fresh(i, j) : fresh(i - 8, j) + 0.5f));
        REQUIRE(x(i, j) == fresh(i, j));
      }
  }
}
