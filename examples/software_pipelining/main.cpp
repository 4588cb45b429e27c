// The Software Pipelining guide's kernels (docs/pallas/pipelining.md), with pl::pallas_call:
//
//   1. add_matrices: no grid, so the whole of x and y are copied into VMEM (SRAM), added, and
//      the whole output copied back to HBM.
//
//        def add_matrices_kernel(x_sram_ref, y_sram_ref, z_sram_ref):
//          x_regs = x_sram_ref[:, :]
//          y_regs = y_sram_ref[:, :]
//          z_regs = x_regs + y_regs
//          z_sram_ref[:, :] = z_regs
//        z = pl.pallas_call(add_matrices_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x, y)
//
//   2. add_matrices_pipelined: the same add over a grid of (512, 512) blocks, each index map
//      (i, j) -> (i, j); and add_matrices_pipelined_param, its block shape a parameter
//      (bm, bn) in {(256, 256), (128, 128), (512, 512)}.
//
//   3. Reductions: summing x (8, M, N) over its first axis. incorrect_sum_kernel
//      (`o_ref[...] += x_ref[...]` over the grid (8, M / 256, N / 256)) accumulates along the
//      first grid axis and never zeroes its output block; correct_sum_kernel moves the
//      reduction to the last grid axis and zeroes the block at its first step:
//
//        def correct_sum_kernel(x_ref, o_ref):
//          @pl.when(pl.program_id(2) == 0)
//          def _():
//            o_ref[...] = jnp.zeros_like(o_ref)
//          o_ref[...] += x_ref[...]
//        grid = (M // 256, N // 256, 8)
//        in_specs=[pl.BlockSpec((None, 256, 256), lambda i, j, k: (k, i, j))]
//        out_specs=pl.BlockSpec((256, 256), lambda i, j, k: (i, j))
//
// The guide's (4096, 4096) adds and (8, 1024, 1024) reduction are scaled down to (1024, 1024)
// and (8, 512, 512) so that the test stays quick under the sanitizers; the blocks are the
// guide's. x and y are uniform in [0, 1) (a fixed LCG instead of jax.random). Every result is
// compared with a loop. incorrect_sum does not compile in pallas-cpp (see below); its second
// mistake alone (no zeroing) is run and must give NaN everywhere.

#include <cmath>
#include <cstdint>
#include <iostream>
#include <string>

#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

auto add_matrices_kernel = [](auto x_sram_ref, auto y_sram_ref, auto z_sram_ref) {
  auto x_regs = pl::load(x_sram_ref);  // load x and y from SRAM (VMEM) into registers
  auto y_regs = pl::load(y_sram_ref);
  auto z_regs = pl::eval(x_regs + y_regs);  // a vectorized add
  z_sram_ref[pl::ellipsis] = z_regs;        // store the registers back into SRAM
};

template <class X>
X add_matrices(X const& x, X const& y) {
  // pallas_call copies x and y into VMEM buffers, runs the kernel once, copies z back to HBM.
  return pl::pallas_call(add_matrices_kernel,
                         pl::out_shape<pl::ShapeDtypeStruct<float, X::shape[0], X::shape[1]>>)(x, y);
}

template <pl::index_t bm, pl::index_t bn, class X>
X add_matrices_pipelined_param(X const& x, X const& y) {
  constexpr pl::index_t m = X::shape[0], n = X::shape[1];
  auto block_spec = pl::BlockSpec<bm, bn>([](auto i, auto j) { return pl::idx(i, j); });
  return pl::pallas_call(add_matrices_kernel, pl::like(x), pl::in_specs(block_spec, block_spec),
                         pl::out_specs(block_spec), pl::grid<m / bm, n / bn>)(x, y);
}

template <class X>
X add_matrices_pipelined(X const& x, X const& y) {
  auto add_matrices_pipelined_kernel = [](auto x_ref, auto y_ref, auto o_ref) {
    o_ref[pl::ellipsis] = x_ref[pl::ellipsis] + y_ref[pl::ellipsis];
  };
  constexpr pl::index_t block = 512;
  auto spec = pl::BlockSpec<block, block>([](auto i, auto j) { return pl::idx(i, j); });
  return pl::pallas_call(add_matrices_pipelined_kernel, pl::grid<X::shape[0] / block, X::shape[1] / block>,
                         pl::in_specs(spec, spec), pl::out_specs(spec),
                         pl::out_shape<pl::ShapeDtypeStruct<float, X::shape[0], X::shape[1]>>)(x, y);
}

#ifdef PALLAS_EXAMPLE_INCORRECT_SUM
// The guide's incorrect_sum, line for line. pallas-cpp rejects it at compile time: each
// output block is revisited after other blocks (its step k of grid axis 0 comes back after
// the other blocks' steps), which Pallas' pipeline does not support (it writes the block back
// when its index changes and never reloads it). Build with -DPALLAS_EXAMPLE_INCORRECT_SUM to
// see "pallas::pallas_call: an output block is revisited after another block".
template <pl::index_t B, pl::index_t M, pl::index_t N>
auto incorrect_sum(pl::Array<float, B, M, N> const& x) {
  constexpr pl::index_t blk = 256;
  return pl::pallas_call([](auto x_ref, auto o_ref) { o_ref[pl::ellipsis] += x_ref[pl::ellipsis]; },
                         pl::grid<B, M / blk, N / blk>,
                         pl::in_specs(pl::BlockSpec<pl::squeezed, blk, blk>(
                             [](auto i, auto j, auto k) { return pl::idx(i, j, k); })),
                         pl::out_specs(pl::BlockSpec<blk, blk>([](auto, auto j, auto k) { return pl::idx(j, k); })),
                         pl::out_shape<pl::ShapeDtypeStruct<float, M, N>>)(x);
}
#endif

// The guide's second mistake alone: the reduction on the last grid axis, but the output block
// never zeroed. Output blocks are never loaded from HBM, so it accumulates onto whatever the
// VMEM buffer held (here NaN, set explicitly below, as the interpreter's
// uninitialized_memory="nan").
template <pl::index_t B, pl::index_t M, pl::index_t N>
pl::Array<float, M, N> unzeroed_sum(pl::Array<float, B, M, N> const& x) {
  constexpr pl::index_t blk = 256;
  return pl::pallas_call([](auto x_ref, auto o_ref) { o_ref[pl::ellipsis] += x_ref[pl::ellipsis]; },
                         pl::grid<M / blk, N / blk, B>,
                         pl::in_specs(pl::BlockSpec<pl::squeezed, blk, blk>(
                             [](auto i, auto j, auto k) { return pl::idx(k, i, j); })),
                         pl::out_specs(pl::BlockSpec<blk, blk>([](auto i, auto j, auto) { return pl::idx(i, j); })),
                         pl::out_shape<pl::ShapeDtypeStruct<float, M, N>>)(x);
}

template <pl::index_t B, pl::index_t M, pl::index_t N>
pl::Array<float, M, N> correct_sum(pl::Array<float, B, M, N> const& x) {
  constexpr pl::index_t blk = 256;
  auto correct_sum_kernel = [](auto x_ref, auto o_ref) {
    pl::when(pl::program_id(2) == 0, [&] { o_ref[pl::ellipsis] = pl::zeros_like(o_ref); });
    o_ref[pl::ellipsis] += x_ref[pl::ellipsis];
  };
  // The reduction is the last grid axis.
  return pl::pallas_call(correct_sum_kernel, pl::grid<M / blk, N / blk, B>,
                         pl::in_specs(pl::BlockSpec<pl::squeezed, blk, blk>(
                             [](auto i, auto j, auto k) { return pl::idx(k, i, j); })),
                         pl::out_specs(pl::BlockSpec<blk, blk>([](auto i, auto j, auto) { return pl::idx(i, j); })),
                         pl::out_shape<pl::ShapeDtypeStruct<float, M, N>>)(x);
}

template <class A>
bool same(std::string const& what, A const& got, A const& expected) {
  for (pl::index_t k = 0; k < got.size(); ++k)
    if (!(got.data()[k] == expected.data()[k])) {
      std::cerr << "software_pipelining (" << what << "): element " << k << " is " << got.data()[k] << ", expected "
                << expected.data()[k] << '\n';
      return false;
    }
  std::cout << "software_pipelining (" << what << "): ok\n";
  return true;
}

int main() {
  std::uint32_t state = 2024u;
  auto uniform = [&](auto...) {
    state = state * 1664525u + 1013904223u;
    return static_cast<float>(state >> 8) / 16777216.0f;
  };
  bool ok = true;

  {  // 1. The whole arrays in VMEM: the guide's (512, 512) ones.
    using X = pl::Array<float, 512, 512>;
    auto const x = X::full(1.0f), y = X::full(1.0f);
    ok &= same("add_matrices, ones", add_matrices(x, y), X::full(2.0f));
    auto const u = X::generate(uniform), v = X::generate(uniform);
    ok &= same("add_matrices", add_matrices(u, v), X::generate([&](auto i, auto j) { return u(i, j) + v(i, j); }));
  }
  {  // 2. Pipelined over (512, 512) blocks, then parameterized.
    using X = pl::Array<float, 1024, 1024>;
    auto const x = X::generate(uniform), y = X::generate(uniform);
    auto const expected = X::generate([&](auto i, auto j) { return x(i, j) + y(i, j); });
    ok &= same("add_matrices_pipelined", add_matrices_pipelined(x, y), expected);
    ok &= same("add_matrices_pipelined_param, (256, 256)", add_matrices_pipelined_param<256, 256>(x, y), expected);
    ok &= same("add_matrices_pipelined_param, (128, 128)", add_matrices_pipelined_param<128, 128>(x, y), expected);
    ok &= same("add_matrices_pipelined_param, (512, 512)", add_matrices_pipelined_param<512, 512>(x, y), expected);
  }
  {  // 3. Reductions over the first axis.
    constexpr pl::index_t B = 8, M = 512, N = 512;
    auto const x = pl::Array<float, B, M, N>::generate([](auto b, auto i, auto j) {
      return static_cast<float>(1 + (b * 5 + i * 3 + j) % 7);
    });
    auto const expected = pl::Array<float, M, N>::generate([&](auto i, auto j) {
      float s = 0;
      for (pl::index_t b = 0; b < B; ++b) s += x(b, i, j);
      return s;
    });
    ok &= same("correct_sum", correct_sum(x), expected);
#ifdef PALLAS_EXAMPLE_INCORRECT_SUM
    (void)incorrect_sum(x);
#endif
    pltpu::scoped_interpret_params nan_buffers({.uninitialized = pltpu::uninitialized_memory::nan});
    auto const wrong = unzeroed_sum(x);
    pl::index_t differ = 0;
    for (pl::index_t k = 0; k < wrong.size(); ++k) differ += !(wrong.data()[k] == expected.data()[k]);
    std::cout << "software_pipelining (sum without zeroing): " << differ << " of " << wrong.size()
              << " elements differ from the sum, as the guide warns (wrong[0, 0] = " << wrong(0, 0)
              << ", the sum is " << expected(0, 0) << ")\n";
    if (differ != wrong.size()) {
      std::cerr << "software_pipelining (sum without zeroing): some output elements did not start as NaN\n";
      ok = false;
    }
  }
  return ok ? 0 : 1;
}
