// expect-error: pallas::make_async_remote_copy: the semaphores must be \(\)-shaped
// A semaphore array as the receive semaphore (pick one with .at(i)). The positive twin
// uses a single DMA semaphore.
#include <pallas/pallas.hpp>

#include <vector>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

#ifdef PALLAS_COMPILE_FAIL
using recv_type = pltpu::SemaphoreType::DMA<2>;
#else
using recv_type = pltpu::SemaphoreType::DMA<>;
#endif

int main() {
  std::vector<pl::Array<float, 128>> xs(2, pl::Array<float, 128>::full(1.0f));
  auto k = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 128>>, pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                      pl::scratch_types<pltpu::SemaphoreType::DMA<>, recv_type>)([](auto x, auto o, auto send, auto recv) {
    pltpu::async_remote_copy(x, o, send, recv, {(pl::axis_index<"x">() + 1) % 2}, pltpu::DeviceIdType::MESH).wait();
  });
  return pl::shard_map<pl::device_mesh<"x", 2>>(k)(xs)[0].data()[0] == 1.0f ? 0 : 1;
}
