// The ring all-reduce of examples/ring_all_reduce made bi-directional, as the "Distributed
// Computing in Pallas for TPUs" guide uses both directions of the ring's links: the top
// half of every block (rows 0-3) goes right around the ring, the bottom half (rows 4-7)
// goes left, each direction with its own send, reduce-scatter and all-gather semaphores and
// its own inbox. Each direction is a reduce-scatter (N - 1 steps) then an all-gather of the
// reduced halves (N - 1 more). On 2, 4 and 8 chips in this process, and on 4 MPI ranks with
// PALLAS_USE_MPI (`mpirun -np 4 example_bidirectional_all_reduce_mpi`), checked against the
// sum over chips computed by a plain loop.

#include <iostream>
#include <vector>

#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

template <int N>
bool all_reduce_on() {
  using mesh = pl::device_mesh<"x", N>;
  constexpr int right_dir = 0, left_dir = 1;  // direction d moves rows [4d, 4d + 4) of every block
  auto all_reduce_kernel =
      pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, N, 8, 128>>, pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                 pl::scratch_types<pltpu::VMEM<float, N, 8, 128>, pltpu::VMEM<float, 2, N - 1, 4, 128>,
                                   pltpu::SemaphoreType::DMA<2>, pltpu::SemaphoreType::DMA<2, N - 1>,
                                   pltpu::SemaphoreType::DMA<2, N - 1>>)(
          [](auto x_ref, auto o_ref, auto work, auto inbox, auto send_sems, auto scatter_sems, auto gather_sems) {
            pl::index_t const me = pl::axis_index<"x">();
            auto const block = [](pl::index_t b) { return (b % N + N) % N; };
            pl::index_t const neighbour[2] = {block(me + 1), block(me - 1)};
            pl::index_t const sign[2] = {1, -1};  // a block index moves by +1 going right, -1 going left
            auto const half = [](auto ref, pl::index_t b, int dir) { return ref.at(b, pl::ds<4>(4 * dir)); };
            // Reduce-scatter, both directions at once: at step s, direction d sends the partial
            // sum of block me - sign*s and adds ours to block me - sign*(s + 1) from the other side.
            auto const scatter_copy = [&](int dir, pl::index_t s) {
              return pltpu::make_async_remote_copy(half(work, block(me - sign[dir] * s), dir), inbox.at(dir, s),
                                                   send_sems.at(dir), scatter_sems.at(dir, s), {neighbour[dir]},
                                                   pltpu::DeviceIdType::MESH);
            };
            pltpu::sync_copy(x_ref, work);
            for (pl::index_t s = 0; s + 1 < N; ++s) {
              for (int dir : {right_dir, left_dir}) scatter_copy(dir, s).start();
              for (int dir : {right_dir, left_dir}) {
                scatter_copy(dir, s).wait();  // ours went out; the other side's arrived in inbox[dir][s]
                pl::index_t const b = block(me - sign[dir] * (s + 1));
                for (pl::index_t i = 0; i < 4; ++i)
                  for (pl::index_t j = 0; j < 128; ++j)
                    work(b, 4 * dir + i, j) = work(b, 4 * dir + i, j) + inbox(dir, s, i, j);
              }
            }
            // Direction d now holds its half of block me + sign (the neighbour's index) reduced
            // over every chip: all-gather them, each step forwarding what arrived the step before.
            pl::index_t const* const mine = neighbour;
            auto const gather_copy = [&](int dir, pl::index_t s) {
              auto const slot = half(o_ref, block(mine[dir] - sign[dir] * s), dir);
              return pltpu::make_async_remote_copy(slot, slot, send_sems.at(dir), gather_sems.at(dir, s),
                                                   {neighbour[dir]}, pltpu::DeviceIdType::MESH);
            };
            for (int dir : {right_dir, left_dir}) pltpu::sync_copy(half(work, mine[dir], dir), half(o_ref, mine[dir], dir));
            for (pl::index_t s = 0; s + 1 < N; ++s) {
              for (int dir : {right_dir, left_dir}) gather_copy(dir, s).start();
              for (int dir : {right_dir, left_dir}) gather_copy(dir, s).wait();
            }
          });

  std::vector<pl::Array<float, N, 8, 128>> shards(N);
  for (int d = 0; d < N; ++d)
    for (pl::index_t k = 0; k < shards[static_cast<std::size_t>(d)].size(); ++k)
      shards[static_cast<std::size_t>(d)].data()[k] = static_cast<float>((d * 37 + k * 11) % 89);
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
  std::cout << (ok ? "ok: every chip holds the sum over chips, half of it gathered each way" : "WRONG") << '\n';
  return ok ? 0 : 1;
}
