#pragma once
// The ring all-reduce kernel of examples/ring_all_reduce for the benchmarks, on N chips
// with N blocks of (R, 128) floats per chip: a reduce-scatter (N - 1 remote copies of a
// block per chip, each added into the receiver's partial sum), then an all-gather of the
// reduced blocks (N - 1 more). bench_allreduce_4chips runs it in process, bench_mpi_allreduce
// on MPI ranks.

#include <pallas/pallas.hpp>

namespace pallas_bench {

template <int N, pallas::index_t R>
auto ring_all_reduce_kernel() {
  namespace pl = pallas;
  namespace pltpu = pallas::tpu;
  return pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, N, R, 128>>, pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                    pl::scratch_types<pltpu::VMEM<float, N, R, 128>, pltpu::VMEM<float, N - 1, R, 128>,
                                      pltpu::SemaphoreType::DMA<>, pltpu::SemaphoreType::DMA<N - 1>,
                                      pltpu::SemaphoreType::DMA<N - 1>>)(
      [](auto x, auto o, auto work, auto inbox, auto send_sem, auto scatter_sems, auto gather_sems) {
        pl::index_t const me = pl::axis_index<"x">();
        pl::index_t const right = (me + 1) % N;
        auto const block = [](pl::index_t b) { return (b % N + N) % N; };
        pltpu::sync_copy(x, work);
        for (pl::index_t s = 0; s + 1 < N; ++s) {  // reduce-scatter
          auto send = pltpu::make_async_remote_copy(work.at(block(me - s)), inbox.at(s), send_sem, scatter_sems.at(s),
                                                    {right}, pltpu::DeviceIdType::MESH);
          send.start();
          send.wait();
          pl::index_t const b = block(me - 1 - s);
          for (pl::index_t i = 0; i < R; ++i)
            for (pl::index_t j = 0; j < 128; ++j) work(b, i, j) = work(b, i, j) + inbox(s, i, j);
        }
        pl::index_t const mine = block(me + 1);
        pltpu::sync_copy(work.at(mine), o.at(mine));
        for (pl::index_t s = 0; s + 1 < N; ++s) {  // all-gather
          pl::index_t const slot = block(mine - s);
          auto c = pltpu::make_async_remote_copy(o.at(slot), o.at(slot), send_sem, gather_sems.at(s), {right},
                                                 pltpu::DeviceIdType::MESH);
          c.start();
          c.wait();
        }
      });
}

}  // namespace pallas_bench
