// Kernels of every kind a program runs, each checked against a plain loop or the error it
// must raise; shared by the soak test and the process-lifetime helper. Each returns true
// when its result (or its error) is right. Sizes are small: under ThreadSanitizer the soak
// runs them thousands of times.
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include <pallas/pallas.hpp>

namespace pallas_test::workloads {

namespace pl = pallas;
namespace pltpu = pallas::tpu;

template <int Cores>
using mesh = pltpu::TensorCoreMesh<"core", Cores>;

inline constexpr auto ij = [](auto i, auto j) { return pl::idx(i, j); };

/// The quickstart's pipelined add on 2 cores: o = x + y over 16x128 blocks.
inline bool pipelined_add(float salt) {
  using A = pl::Array<float, 64, 256>;
  auto const x = A::generate([=](auto i, auto j) { return static_cast<float>(i * 256 + j) + salt; });
  auto const y = A::full(salt * 2.0f);
  auto add = pl::kernel(pl::like(x), pl::mesh<mesh<2>>)([](auto x_hbm, auto y_hbm, auto o_hbm) {
    pltpu::emit_pipeline([](auto xv, auto yv, auto ov) { ov[pl::ellipsis] = xv[pl::ellipsis] + yv[pl::ellipsis]; },
                         pl::grid<64 / 16, 256 / 128>,
                         pl::in_specs(pl::BlockSpec<16, 128>(ij), pl::BlockSpec<16, 128>(ij)),
                         pl::out_specs(pl::BlockSpec<16, 128>(ij)), pltpu::core_axis_name<"core">,
                         pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::ARBITRARY>)(x_hbm, y_hbm, o_hbm);
  });
  A const o = add(x, y);
  for (pl::index_t i = 0; i < 64; ++i)
    for (pl::index_t j = 0; j < 256; ++j)
      if (o(i, j) != x(i, j) + y(i, j)) return false;
  return true;
}

/// The TPU matmul through pallas_call (f32 accumulator scratch, k innermost), 2 cores:
/// (16 x 256) @ (256 x 128) in (8, 128) x (128, 128) blocks, a (2, 1, 2) grid.
inline bool matmul(float salt) {
  constexpr pl::index_t M = 16, K = 256, N = 128, bm = 8, bk = 128, bn = 128;
  // Small integers: every partial sum is exact in f32, whatever the summation order.
  auto const x = pl::Array<float, M, K>::generate(
      [=](auto i, auto j) { return static_cast<float>((i * 3 + j + static_cast<int>(salt)) % 7) - 3; });
  auto const y = pl::Array<float, K, N>::generate([](auto i, auto j) { return static_cast<float>((i + j * 5) % 5) - 2; });
  auto kernel = [](auto x_ref, auto y_ref, auto z_ref, auto acc_ref) {
    pl::when(pl::program_id(2) == 0, [&] { acc_ref[pl::ellipsis] = pl::zeros_like(acc_ref); });
    acc_ref[pl::ellipsis] += pl::dot(x_ref[pl::ellipsis], y_ref[pl::ellipsis], pl::preferred_element_type<float>);
    pl::when(pl::program_id(2) == pl::num_programs(2) - 1, [&] { z_ref[pl::ellipsis] = acc_ref[pl::ellipsis]; });
  };
  pl::Array<float, M, N> const z = pl::pallas_call(
      kernel, pl::out_shape<pl::ShapeDtypeStruct<float, M, N>>, pl::grid<M / bm, N / bn, K / bk>,
      pl::in_specs(pl::BlockSpec<bm, bk>([](auto i, auto, auto k) { return pl::idx(i, k); }),
                   pl::BlockSpec<bk, bn>([](auto, auto j, auto k) { return pl::idx(k, j); })),
      pl::out_specs(pl::BlockSpec<bm, bn>([](auto i, auto j, auto) { return pl::idx(i, j); })),
      pl::scratch_shapes<pltpu::VMEM<float, bm, bn>>, pltpu::num_cores<2>,
      pltpu::compiler_params(pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::PARALLEL, pltpu::ARBITRARY>))(x, y);
  for (pl::index_t i = 0; i < M; ++i)
    for (pl::index_t j = 0; j < N; ++j) {
      float s = 0;
      for (pl::index_t k = 0; k < K; ++k) s += x(i, k) * y(k, j);
      if (z(i, j) != s) return false;
    }
  return true;
}

/// examples/manual_double_buffer, smaller: o = 2x + 1 with two slots per direction and DMA
/// semaphores, by hand, on 2 cores.
inline bool manual_double_buffer(float salt) {
  constexpr pl::index_t M = 64, N = 128, BR = 8, blocks = M / BR;
  using X = pl::Array<float, M, N>;
  auto const x = X::generate([=](auto i, auto j) { return static_cast<float>((i * 7 + j * 3) % 101) + salt; });
  auto kernel = pl::kernel(pl::like(x), pl::mesh<mesh<2>>,
                           pl::scratch_types<pltpu::VMEM<float, 2, BR, N>, pltpu::VMEM<float, 2, BR, N>,
                                             pltpu::SemaphoreType::DMA<2>, pltpu::SemaphoreType::DMA<2>>)(
      [](auto x_hbm, auto o_hbm, auto x_vmem, auto o_vmem, auto in_sems, auto out_sems) {
        pl::index_t const cores = pl::axis_size<"core">();
        pl::index_t const core = pl::axis_index<"core">();
        pl::index_t const first = core * (blocks / cores), last = first + blocks / cores;
        auto fetch = [&](pl::index_t b, pl::index_t slot) {
          return pltpu::make_async_copy(x_hbm.at(pl::ds<BR>(b * BR)), x_vmem.at(slot), in_sems.at(slot));
        };
        auto store = [&](pl::index_t b, pl::index_t slot) {
          return pltpu::make_async_copy(o_vmem.at(slot), o_hbm.at(pl::ds<BR>(b * BR)), out_sems.at(slot));
        };
        fetch(first, 0).start();
        for (pl::index_t b = first; b < last; ++b) {
          pl::index_t const slot = (b - first) % 2;
          if (b + 1 < last) fetch(b + 1, 1 - slot).start();
          fetch(b, slot).wait();
          if (b - first >= 2) store(b - 2, slot).wait();
          o_vmem.at(slot)[pl::ellipsis] = x_vmem.at(slot)[pl::ellipsis] * 2.0f + 1.0f;
          store(b, slot).start();
        }
        for (pl::index_t b = std::max(first, last - 2); b < last; ++b) store(b, (b - first) % 2).wait();
      });
  X const o = kernel(x);
  for (pl::index_t i = 0; i < M; ++i)
    for (pl::index_t j = 0; j < N; ++j)
      if (o(i, j) != x(i, j) * 2.0f + 1.0f) return false;
  return true;
}

/// 4 cores write their row of `mine`, meet at a semaphore barrier, then each copies its
/// neighbour's row (written by another core before the barrier) into `theirs`.
inline bool semaphore_barrier(float salt) {
  auto kernel = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 4, 128>, pl::ShapeDtypeStruct<float, 4, 128>>,
                           pl::mesh<mesh<4>>,
                           pl::scratch_types<pltpu::VMEM<float, 128>, pltpu::SemaphoreType::REGULAR<>>)(
      [=](auto mine, auto theirs, auto row, auto sem) {
        pl::index_t const c = pl::axis_index<"core">();
        row[pl::ellipsis] = pl::arange<float, 128>() + static_cast<float>(c) * salt;
        pltpu::sync_copy(row, mine.at(c));
        pltpu::core_barrier<"core">(sem);
        pltpu::sync_copy(mine.at((c + 1) % 4), row);
        pltpu::sync_copy(row, theirs.at(c));
      });
  auto const [mine, theirs] = kernel();
  for (pl::index_t c = 0; c < 4; ++c)
    for (pl::index_t k = 0; k < 128; ++k) {
      if (mine(c, k) != static_cast<float>(k) + static_cast<float>(c) * salt) return false;
      if (theirs(c, k) != static_cast<float>(k) + static_cast<float>((c + 1) % 4) * salt) return false;
    }
  return true;
}

/// Core 1 throws while core 0 waits for its signal: the exception reaches the caller and
/// core 0 unwinds.
inline bool throws_on_one_core() {
  auto kernel = pl::kernel(pl::mesh<mesh<2>>, pl::scratch_types<pltpu::SemaphoreType::REGULAR<>>)([](auto sem) {
    if (pl::axis_index<"core">() == 1) throw std::runtime_error("core 1 fails on purpose");
    pl::semaphore_wait(sem, 1);
  });
  try {
    kernel();
  } catch (std::runtime_error const& e) {
    return std::string(e.what()) == "core 1 fails on purpose";
  }
  return false;
}

/// Two cores wait for each other: a pl::deadlock_error naming both, not a hang.
inline bool deadlocks() {
  auto kernel = pl::kernel(pl::mesh<mesh<2>>,
                           pl::scratch_types<pltpu::SemaphoreType::REGULAR<>, pltpu::SemaphoreType::REGULAR<>>)(
      [](auto a, auto b) {
        pl::index_t const c = pl::axis_index<"core">();
        pl::semaphore_wait(c == 0 ? a : b, 1);
        pl::semaphore_signal(c == 0 ? b : a, 1, 1 - c);
      });
  try {
    kernel();
  } catch (pl::deadlock_error const& e) {
    std::string const m = e.what();
    return m.find("core 0 waits in semaphore_wait") != std::string::npos &&
           m.find("core 1 waits in semaphore_wait") != std::string::npos;
  }
  return false;
}

}  // namespace pallas_test::workloads
