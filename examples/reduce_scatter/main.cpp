// The "Distributed Computing in Pallas for TPUs" guide's ring reduce-scatter: every chip
// holds N blocks, and chip d ends with block d summed over all chips. A partial sum starts
// on chip b + 1 and travels right, each chip adding its own block b, for N - 1 steps. As in
// the guide, the receiving buffer is double-buffered (two inbox slots), so a chip may only
// send into a slot once its right neighbour signalled (a REGULAR semaphore, remotely) that it
// consumed what the slot held two steps earlier (without that wait, checked mode reports the
// race: the next copy lands in the slot while the receiver still adds from it); a
// barrier-semaphore handshake first makes sure both neighbours entered the kernel. On 2, 4
// and 8 chips in this process, and on 4 MPI ranks with PALLAS_USE_MPI (`mpirun -np 4
// example_reduce_scatter_mpi`), checked against the sums computed by a plain loop.

#include <iostream>
#include <vector>

#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

template <int N>
bool reduce_scatter_on() {
  using mesh = pl::device_mesh<"x", N>;
  auto reduce_scatter_kernel =
      pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 8, 128>>, pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                 pl::scratch_types<pltpu::VMEM<float, N, 8, 128>, pltpu::VMEM<float, 8, 128>, pltpu::VMEM<float, 2, 8, 128>,
                                   pltpu::SemaphoreType::DMA<>, pltpu::SemaphoreType::DMA<2>,
                                   pltpu::SemaphoreType::REGULAR<>>)(
          [](auto x_ref, auto o_ref, auto local, auto acc, auto inbox, auto send_sem, auto recv_sems, auto capacity_sem) {
            pl::index_t const me = pl::axis_index<"x">();
            pl::index_t const left = (me + N - 1) % N, right = (me + 1) % N;
            auto const block = [](pl::index_t b) { return (b % N + N) % N; };
            pltpu::sync_copy(x_ref, local);
            auto barrier = pltpu::get_barrier_semaphore();  // both neighbours are in the kernel
            pl::semaphore_signal(barrier, 1, {left}, pltpu::DeviceIdType::MESH);
            pl::semaphore_signal(barrier, 1, {right}, pltpu::DeviceIdType::MESH);
            pl::semaphore_wait(barrier, 2);
            // The partial sum that starts here: block me - 1, which ends on the left neighbour.
            pltpu::sync_copy(local.at(block(me - 1)), acc);
            for (pl::index_t s = 0; s + 1 < N; ++s) {
              pl::index_t const slot = s % 2;
              if (s >= 2) pl::semaphore_wait(capacity_sem, 1);  // the right chip is done with inbox[slot]
              auto send = pltpu::make_async_remote_copy(acc, inbox.at(slot), send_sem, recv_sems.at(slot), {right},
                                                        pltpu::DeviceIdType::MESH);
              send.start();
              send.wait();  // acc went out; the left chip's partial sum of block me - 2 - s is in inbox[slot]
              pl::index_t const b = block(me - 2 - s);
              for (pl::index_t i = 0; i < 8; ++i)
                for (pl::index_t j = 0; j < 128; ++j) acc(i, j) = inbox(slot, i, j) + local(b, i, j);
              // The left chip refills this slot two steps on, if there is such a step.
              if (s + 3 < N) pl::semaphore_signal(capacity_sem, 1, {left}, pltpu::DeviceIdType::MESH);
            }
            pltpu::sync_copy(acc, o_ref);  // the last step added block me - N = me
          });

  std::vector<pl::Array<float, N, 8, 128>> shards(N);
  for (int d = 0; d < N; ++d)
    for (pl::index_t k = 0; k < shards[static_cast<std::size_t>(d)].size(); ++k)
      shards[static_cast<std::size_t>(d)].data()[k] = static_cast<float>((d * 31 + k * 7) % 97);
  auto const out = pl::shard_map<mesh>(reduce_scatter_kernel)(shards);

  bool ok = true;
  for (int d : pl::local_chips<mesh>()) {  // every chip in process; this rank's over MPI
    pl::Array<float, 8, 128> sum = pl::Array<float, 8, 128>::full(0.0f);  // the reference: block d over chips
    for (int c = 0; c < N; ++c)
      for (pl::index_t i = 0; i < 8; ++i)
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
