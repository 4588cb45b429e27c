// The "Distributed Computing in Pallas for TPUs" guide's ring all-gather: at step s every
// chip forwards the block that reached it at step s - 1 to its right neighbour, so after
// N - 1 steps every chip holds all N blocks. On 2, 4 and 8 chips in this process, checked
// against the concatenated inputs.

#include <iostream>
#include <vector>

#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

template <int NumDevices>
bool all_gather_on() {
  using mesh = pl::device_mesh<"x", NumDevices>;
  auto all_gather_kernel =
      pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, NumDevices, 8, 128>>,
                 pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                 pl::scratch_types<pltpu::SemaphoreType::DMA<>, pltpu::SemaphoreType::DMA<>,
                                   pltpu::SemaphoreType::DMA<NumDevices - 1>>)(
          [](auto input_ref, auto output_ref, auto local_copy_sem, auto send_sem, auto recv_sems) {
            pl::index_t const my_id = pl::axis_index<"x">();
            pl::index_t const right_neighbor = (my_id + 1) % NumDevices;
            // The guide's grid of N - 1 steps, as a loop.
            for (pl::index_t outer_step = 0; outer_step < NumDevices - 1; ++outer_step) {
              pl::index_t const copy_slot = (my_id - outer_step + NumDevices) % NumDevices;
              if (outer_step == 0) {
                auto local_copy_op = pltpu::make_async_copy(input_ref, output_ref.at(my_id), local_copy_sem);
                local_copy_op.start();
                local_copy_op.wait();
              }
              auto remote_copy_op = pltpu::make_async_remote_copy(
                  output_ref.at(copy_slot), output_ref.at(copy_slot), send_sem, recv_sems.at(outer_step),
                  {right_neighbor}, pltpu::DeviceIdType::MESH);
              remote_copy_op.start();
              remote_copy_op.wait();
            }
          });

  std::vector<pl::Array<float, 8, 128>> shards(NumDevices);
  for (int d = 0; d < NumDevices; ++d)
    for (pl::index_t k = 0; k < shards[static_cast<std::size_t>(d)].size(); ++k)
      shards[static_cast<std::size_t>(d)].data()[k] = static_cast<float>((d * 7919 + k) % 4093);
  auto const out = pl::shard_map<mesh>(all_gather_kernel)(shards);

  bool ok = true;  // the reference: every chip holds block b == chip b's shard
  for (int d = 0; d < NumDevices; ++d)
    for (int b = 0; b < NumDevices; ++b)
      for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 128; ++j)
          ok = ok && out[static_cast<std::size_t>(d)](b, i, j) == shards[static_cast<std::size_t>(b)](i, j);
  std::cout << NumDevices << " chips: " << (ok ? "ok" : "WRONG") << '\n';
  return ok;
}

int main() {
  bool const ok = all_gather_on<2>() && all_gather_on<4>() && all_gather_on<8>();
  std::cout << (ok ? "ok: every chip holds every chip's block" : "WRONG") << '\n';
  return ok ? 0 : 1;
}
