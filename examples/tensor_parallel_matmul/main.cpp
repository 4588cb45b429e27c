// A tensor-parallel matmul on a ring of N chips, as collective-matmul kernels write it: the
// all-gather of the LHS overlapped with the local matmul. z = x @ w with x (M, D) sharded by
// rows (chip c holds rows [c M/N, (c + 1) M/N)) and w (D, K) by columns (chip c holds
// columns [c K/N, (c + 1) K/N)); chip c ends with its column shard of z, (M, K/N), the
// standard layout of an all-gather collective matmul. At step s a chip multiplies the x
// shard it holds (chip me - s's) by its w shard while forwarding that shard to its right
// neighbour, so the next one arrives from the left during the product. The x shards are
// double-buffered in two VMEM slots: a chip may only send into its right neighbour's slot
// once that chip signalled (a REGULAR semaphore, remotely) that it is done with what the slot
// held a step earlier (without that wait a shard can land in a slot still being multiplied
// or filled; checked mode usually reports the race); a barrier-semaphore handshake first
// makes sure both neighbours entered the kernel. On 2, 4 and 8 chips in this process, and
// on 4 MPI ranks with PALLAS_USE_MPI (`mpirun -np 4 example_tensor_parallel_matmul_mpi`),
// checked against a triple loop.

#include <iostream>
#include <vector>

#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

template <int N>
bool tensor_parallel_matmul_on() {
  using mesh = pl::device_mesh<"x", N>;
  constexpr pl::index_t MB = 16, D = 256, KB = 128;  // x shard (MB, D), w shard (D, KB)
  constexpr pl::index_t M = N * MB, K = N * KB;
  auto matmul_kernel =
      pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, M, KB>>, pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                 pl::scratch_types<pltpu::VMEM<float, 2, MB, D>, pltpu::VMEM<float, D, KB>, pltpu::VMEM<float, M, KB>,
                                   pltpu::SemaphoreType::DMA<>, pltpu::SemaphoreType::DMA<2>,
                                   pltpu::SemaphoreType::REGULAR<>>)(
          [](auto x_ref, auto w_ref, auto z_ref, auto x_slots, auto w_shard, auto z, auto send_sem, auto recv_sems,
             auto capacity_sem) {
            pl::index_t const me = pl::axis_index<"x">();
            pl::index_t const left = (me + N - 1) % N, right = (me + 1) % N;
            auto barrier = pltpu::get_barrier_semaphore();  // both neighbours are in the kernel
            pl::semaphore_signal(barrier, 1, {left}, pltpu::DeviceIdType::MESH);
            pl::semaphore_signal(barrier, 1, {right}, pltpu::DeviceIdType::MESH);
            pl::semaphore_wait(barrier, 2);
            pltpu::sync_copy(x_ref, x_slots.at(0));
            pltpu::sync_copy(w_ref, w_shard);
            for (pl::index_t s = 0; s < N; ++s) {
              pl::index_t const slot = s % 2, next = 1 - slot;
              auto send = pltpu::make_async_remote_copy(x_slots.at(slot), x_slots.at(next), send_sem,
                                                        recv_sems.at(next), {right}, pltpu::DeviceIdType::MESH);
              bool const forward = s + 1 < N;  // the last shard stays here
              if (forward) {
                if (s >= 1) pl::semaphore_wait(capacity_sem, 1);  // the right chip is done with its x_slots[next]
                send.start();
              }
              // While the shard travels: the block of z whose rows are chip me - s's shard.
              pl::index_t const b = (me - s + N) % N;
              z.at(pl::ds<MB>(b * MB))[pl::ellipsis] =
                  pl::dot(x_slots.at(slot)[pl::ellipsis], w_shard[pl::ellipsis], pl::preferred_element_type<float>);
              if (forward) send.wait();  // ours went out; chip me - s - 1's shard is in x_slots[next]
              // The left chip refills x_slots[slot] at its step s + 1, if it sends then.
              if (s + 2 < N) pl::semaphore_signal(capacity_sem, 1, {left}, pltpu::DeviceIdType::MESH);
            }
            pltpu::sync_copy(z, z_ref);
          });

  // Small integers: every product and sum is exact in f32, so the result must match exactly.
  auto const x =
      pl::Array<float, M, D>::generate([](auto i, auto p) { return static_cast<float>((i * 7 + p * 3) % 11) - 5; });
  auto const w =
      pl::Array<float, D, K>::generate([](auto p, auto j) { return static_cast<float>((p * 5 + j) % 13) - 6; });
  std::vector<pl::Array<float, MB, D>> x_shards;  // chip c: rows [c MB, (c + 1) MB) of x
  std::vector<pl::Array<float, D, KB>> w_shards;  // chip c: columns [c KB, (c + 1) KB) of w
  for (pl::index_t c = 0; c < N; ++c) {
    x_shards.push_back(pl::Array<float, MB, D>::generate([&](auto i, auto p) { return x(c * MB + i, p); }));
    w_shards.push_back(pl::Array<float, D, KB>::generate([&](auto p, auto j) { return w(p, c * KB + j); }));
  }
  auto const out = pl::shard_map<mesh>(matmul_kernel)(x_shards, w_shards);

  bool ok = true;
  for (int d : pl::local_chips<mesh>()) {  // every chip in process; this rank's over MPI
    pl::Array<float, M, KB> ref = pl::Array<float, M, KB>::full(0.0f);  // the reference: (x @ w)[:, columns of d]
    for (pl::index_t i = 0; i < M; ++i)
      for (pl::index_t j = 0; j < KB; ++j)
        for (pl::index_t p = 0; p < D; ++p) ref(i, j) += x(i, p) * w(p, d * KB + j);
    bool const right = out[static_cast<std::size_t>(d)] == ref;
    std::cout << N << " chips: chip " << d << (right ? " ok" : " WRONG") << '\n';
    ok = ok && right;
  }
  return ok;
}

int main() {
#ifdef PALLAS_USE_MPI
  bool const ok = tensor_parallel_matmul_on<4>();  // mpirun -np 4: one chip per rank
#else
  bool const ok = tensor_parallel_matmul_on<2>() && tensor_parallel_matmul_on<4>() && tensor_parallel_matmul_on<8>();
#endif
  std::cout << (ok ? "ok: every chip holds its column shard of x @ w" : "WRONG") << '\n';
  return ok ? 0 : 1;
}
