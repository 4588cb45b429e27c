// The "Distributed Computing in Pallas for TPUs" guide's right permute (lax.ppermute as a
// kernel): every chip of a 1-D mesh sends its block to its right neighbour with one remote
// DMA, on 2, 4 and 8 chips in this process, checked against the permuted inputs.

#include <iostream>
#include <vector>

#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

template <int NumDevices>
bool right_permute_on() {
  using mesh = pl::device_mesh<"x", NumDevices>;  // jax.sharding.Mesh(devices, ('x',))
  auto right_permute_kernel =
      pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 8, 128>>, pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                 pl::scratch_types<pltpu::SemaphoreType::DMA<>, pltpu::SemaphoreType::DMA<>>)(
          [](auto input_ref, auto output_ref, auto send_sem, auto recv_sem) {
            pl::index_t const my_id = pl::axis_index<"x">();
            pl::index_t const right_neighbor = (my_id + 1) % NumDevices;
            auto remote_copy_op = pltpu::make_async_remote_copy(input_ref, output_ref, send_sem, recv_sem,
                                                                {right_neighbor}, pltpu::DeviceIdType::MESH);
            remote_copy_op.start();
            remote_copy_op.wait();
          });

  // One (8, 128) shard per chip: chip d's block holds d * 1000 + its element index.
  std::vector<pl::Array<float, 8, 128>> shards(NumDevices);
  for (int d = 0; d < NumDevices; ++d)
    for (pl::index_t k = 0; k < shards[static_cast<std::size_t>(d)].size(); ++k)
      shards[static_cast<std::size_t>(d)].data()[k] = static_cast<float>(d * 1000 + k);
  auto const out = pl::shard_map<mesh>(right_permute_kernel)(shards);

  bool ok = true;
  for (int d = 0; d < NumDevices; ++d)  // the reference: chip d gets chip d - 1's block
    ok = ok && out[static_cast<std::size_t>(d)] == shards[static_cast<std::size_t>((d + NumDevices - 1) % NumDevices)];
  std::cout << NumDevices << " chips: chip 0 received a block starting " << out[0](0, 0) << ", "
            << (ok ? "ok" : "WRONG") << '\n';
  return ok;
}

int main() {
  bool const ok = right_permute_on<2>() && right_permute_on<4>() && right_permute_on<8>();
  std::cout << (ok ? "ok: every chip holds its left neighbour's block" : "WRONG") << '\n';
  return ok ? 0 : 1;
}
