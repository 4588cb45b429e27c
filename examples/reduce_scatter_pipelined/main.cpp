// The ring reduce-scatter of examples/reduce_scatter with a nested pipeline, as in the
// "Distributed Computing in Pallas for TPUs" guide's last section: the chip's blocks stay
// in HBM, and at every step of the ring an inner emit_pipeline streams the local block
// through VMEM in (8, 128) tiles, adding each tile to the partial sum that arrived from the
// left neighbour. The outer ring (remote copies of the partial sums into a double-buffered
// inbox, a remote REGULAR semaphore freeing a slot, a barrier-semaphore handshake) is the
// reduce_scatter example's; the inner pipeline of the last step writes the output. On 2, 4
// and 8 chips in this process, and on 4 MPI ranks with PALLAS_USE_MPI (`mpirun -np 4
// example_reduce_scatter_pipelined_mpi`), checked against the sums of a plain loop.

#include <iostream>
#include <vector>

#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

template <int N>
bool reduce_scatter_on() {
  using mesh = pl::device_mesh<"x", N>;
  constexpr pl::index_t R = 64;  // rows of each of the N blocks: the inner pipeline has R / 8 steps
  auto reduce_scatter_kernel =
      pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, R, 128>>, pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                 pl::scratch_types<pltpu::VMEM<float, R, 128>, pltpu::VMEM<float, 2, R, 128>, pltpu::SemaphoreType::DMA<>,
                                   pltpu::SemaphoreType::DMA<2>, pltpu::SemaphoreType::REGULAR<>>)(
          [](auto x_hbm, auto o_hbm, auto acc, auto inbox, auto send_sem, auto recv_sems, auto capacity_sem) {
            pl::index_t const me = pl::axis_index<"x">();
            pl::index_t const left = (me + N - 1) % N, right = (me + 1) % N;
            auto const block = [](pl::index_t b) { return (b % N + N) % N; };
            // dst = partial + mine, one (8, 128) tile at a time (mine is fetched from HBM one
            // tile ahead; dst is written back tile by tile).
            auto const accumulate = [](auto partial, auto mine, auto dst) {
              auto const tile = [](auto i) { return pl::idx(i, 0); };
              pltpu::emit_pipeline(
                  [](auto partial_tile, auto mine_tile, auto dst_tile) {
                    dst_tile[pl::ellipsis] = partial_tile[pl::ellipsis] + mine_tile[pl::ellipsis];
                  },
                  pl::grid<R / 8>, pl::in_specs(pl::BlockSpec<8, 128>(tile), pl::BlockSpec<8, 128>(tile)),
                  pl::out_specs(pl::BlockSpec<8, 128>(tile)))(partial, mine, dst);
            };
            auto barrier = pltpu::get_barrier_semaphore();  // both neighbours are in the kernel
            pl::semaphore_signal(barrier, 1, {left}, pltpu::DeviceIdType::MESH);
            pl::semaphore_signal(barrier, 1, {right}, pltpu::DeviceIdType::MESH);
            pl::semaphore_wait(barrier, 2);
            pltpu::sync_copy(x_hbm.at(block(me - 1)), acc);  // the partial sum that starts here
            for (pl::index_t s = 0; s + 1 < N; ++s) {
              pl::index_t const slot = s % 2;
              if (s >= 2) pl::semaphore_wait(capacity_sem, 1);  // the right chip is done with inbox[slot]
              auto send = pltpu::make_async_remote_copy(acc, inbox.at(slot), send_sem, recv_sems.at(slot), {right},
                                                        pltpu::DeviceIdType::MESH);
              send.start();
              send.wait();  // acc went out; the left chip's partial sum of block me - 2 - s is in inbox[slot]
              pl::index_t const b = block(me - 2 - s);
              if (s + 2 < N)
                accumulate(inbox.at(slot), x_hbm.at(b), acc);  // the partial sum to send next
              else
                accumulate(inbox.at(slot), x_hbm.at(b), o_hbm);  // b == me: the chip's reduced block
              if (s + 3 < N) pl::semaphore_signal(capacity_sem, 1, {left}, pltpu::DeviceIdType::MESH);
            }
          });

  std::vector<pl::Array<float, N, R, 128>> shards(N);
  for (int d = 0; d < N; ++d)
    for (pl::index_t k = 0; k < shards[static_cast<std::size_t>(d)].size(); ++k)
      shards[static_cast<std::size_t>(d)].data()[k] = static_cast<float>((d * 13 + k * 5) % 83);
  auto const out = pl::shard_map<mesh>(reduce_scatter_kernel)(shards);

  bool ok = true;
  for (int d : pl::local_chips<mesh>()) {  // every chip in process; this rank's over MPI
    pl::Array<float, R, 128> sum = pl::Array<float, R, 128>::full(0.0f);  // the reference: block d over chips
    for (int c = 0; c < N; ++c)
      for (pl::index_t i = 0; i < R; ++i)
        for (pl::index_t j = 0; j < 128; ++j) sum(i, j) += shards[static_cast<std::size_t>(c)](d, i, j);
    bool const right = out[static_cast<std::size_t>(d)] == sum;
    std::cout << N << " chips: chip " << d << (right ? " ok" : " WRONG") << '\n';
    ok = ok && right;
  }
  return ok;
}

int main() {
#ifdef PALLAS_USE_MPI
  bool const ok = reduce_scatter_on<4>();  // mpirun -np 4: one chip per rank
#else
  bool const ok = reduce_scatter_on<2>() && reduce_scatter_on<4>() && reduce_scatter_on<8>();
#endif
  std::cout << (ok ? "ok: every chip holds its block summed over chips" : "WRONG") << '\n';
  return ok ? 0 : 1;
}
