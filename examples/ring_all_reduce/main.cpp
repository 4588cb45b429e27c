// A ring all-reduce written as a kernel, as the "Distributed Computing in Pallas for TPUs"
// guide builds its collectives from remote DMAs: a reduce-scatter (N - 1 steps, each chip
// sends one partial sum to its right neighbour's inbox and adds what arrived from its left),
// then an all-gather of the reduced blocks (N - 1 more steps). On 2, 4 and 8 chips in this
// process, checked against the sum over chips computed by a plain loop.
//
// The same source runs on 4 MPI ranks, one chip each, when built with PALLAS_USE_MPI (the
// CMake target pallas::mpi; the build registers `mpirun -np 4 example_ring_all_reduce_mpi`):
// each rank checks its own chip's result, the chips pl::local_chips names.

#include <iostream>
#include <vector>

#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

template <int N>
bool all_reduce_on() {
  using mesh = pl::device_mesh<"x", N>;
  auto all_reduce_kernel =
      pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, N, 8, 128>>, pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                 pl::scratch_types<pltpu::VMEM<float, N, 8, 128>, pltpu::VMEM<float, N - 1, 8, 128>,
                                   pltpu::SemaphoreType::DMA<>, pltpu::SemaphoreType::DMA<N - 1>,
                                   pltpu::SemaphoreType::DMA<N - 1>>)(
          [](auto x_ref, auto o_ref, auto work, auto inbox, auto send_sem, auto scatter_sems, auto gather_sems) {
            pl::index_t const me = pl::axis_index<"x">();
            pl::index_t const right = (me + 1) % N;
            auto const block = [&](pl::index_t b) { return (b % N + N) % N; };
            pltpu::sync_copy(x_ref, work);
            // Reduce-scatter: at step s, send the partial sum of block me - s (it has s + 1
            // chips' terms), receive block me - 1 - s from the left and add ours to it.
            for (pl::index_t s = 0; s + 1 < N; ++s) {
              auto send = pltpu::make_async_remote_copy(work.at(block(me - s)), inbox.at(s), send_sem, scatter_sems.at(s),
                                                        {right}, pltpu::DeviceIdType::MESH);
              send.start();
              send.wait();  // our block went out, the left neighbour's arrived in inbox[s]
              pl::index_t const b = block(me - 1 - s);
              for (pl::index_t i = 0; i < 8; ++i)
                for (pl::index_t j = 0; j < 128; ++j) work(b, i, j) = work(b, i, j) + inbox(s, i, j);
            }
            // This chip now holds block me + 1 reduced over every chip: all-gather them.
            pl::index_t const mine = block(me + 1);
            pltpu::sync_copy(work.at(mine), o_ref.at(mine));
            for (pl::index_t s = 0; s + 1 < N; ++s) {
              pl::index_t const slot = block(mine - s);
              auto c = pltpu::make_async_remote_copy(o_ref.at(slot), o_ref.at(slot), send_sem, gather_sems.at(s),
                                                     {right}, pltpu::DeviceIdType::MESH);
              c.start();
              c.wait();
            }
          });

  std::vector<pl::Array<float, N, 8, 128>> shards(N);
  for (int d = 0; d < N; ++d)
    for (pl::index_t k = 0; k < shards[static_cast<std::size_t>(d)].size(); ++k)
      shards[static_cast<std::size_t>(d)].data()[k] = static_cast<float>((d * 31 + k * 7) % 97);
  auto const out = pl::shard_map<mesh>(all_reduce_kernel)(shards);

  pl::Array<float, N, 8, 128> sum = pl::Array<float, N, 8, 128>::full(0.0f);  // the reference
  for (int d = 0; d < N; ++d)
    for (pl::index_t k = 0; k < sum.size(); ++k) sum.data()[k] += shards[static_cast<std::size_t>(d)].data()[k];
  bool ok = true;
  for (int d : pl::local_chips<mesh>()) {  // every chip in process; this rank's over MPI
    bool const right = out[static_cast<std::size_t>(d)] == sum;
    std::cout << N << " chips: chip " << d << (right ? " ok" : " WRONG") << '\n';
    ok = ok && right;
  }
  return ok;
}

int main() {
#ifdef PALLAS_USE_MPI
  bool const ok = all_reduce_on<4>();  // mpirun -np 4: one chip per rank
#else
  bool const ok = all_reduce_on<2>() && all_reduce_on<4>() && all_reduce_on<8>();
#endif
  std::cout << (ok ? "ok: every chip holds the sum over chips" : "WRONG") << '\n';
  return ok ? 0 : 1;
}
