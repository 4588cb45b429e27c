// expect-error: pallas::make_async_remote_copy: the semaphores must be DMA semaphores
// A REGULAR receive semaphore: remote copies count bytes on DMA semaphores. The positive
// twin uses a DMA semaphore.
#include "remote_copy_ring.hpp"

namespace pltpu = pallas::tpu;

#ifdef PALLAS_COMPILE_FAIL
using recv_type = pltpu::SemaphoreType::REGULAR<>;
#else
using recv_type = pltpu::SemaphoreType::DMA<>;
#endif

int main() { return remote_copy_ring<recv_type>(); }
