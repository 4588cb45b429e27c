// expect-error: pallas::make_async_remote_copy: the semaphores must be \(\)-shaped
// A semaphore array as the receive semaphore (pick one with .at(i)). The positive twin
// uses a single DMA semaphore.
#include "remote_copy_ring.hpp"

namespace pltpu = pallas::tpu;

#ifdef PALLAS_COMPILE_FAIL
using recv_type = pltpu::SemaphoreType::DMA<2>;
#else
using recv_type = pltpu::SemaphoreType::DMA<>;
#endif

int main() { return remote_copy_ring<recv_type>(); }
