// The kernel of the remote-copy semaphore rules (remote_copy_*.cpp): on a ring of 2 chips,
// every chip copies its block to its right neighbour with `Recv` as the receive semaphore.
#pragma once

#include <vector>

#include <pallas/pallas.hpp>

template <class Recv>
int remote_copy_ring() {
  namespace pl = pallas;
  namespace pltpu = pallas::tpu;
  std::vector<pl::Array<float, 128>> xs(2, pl::Array<float, 128>::full(1.0f));
  auto k = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 128>>, pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                      pl::scratch_types<pltpu::SemaphoreType::DMA<>, Recv>)([](auto x, auto o, auto send, auto recv) {
    pltpu::async_remote_copy(x, o, send, recv, {(pl::axis_index<"x">() + 1) % 2}, pltpu::DeviceIdType::MESH).wait();
  });
  return pl::shard_map<pl::device_mesh<"x", 2>>(k)(xs)[0].data()[0] == 1.0f ? 0 : 1;
}
