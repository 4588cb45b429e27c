// SPDX-License-Identifier: Apache-2.0
#pragma once
// Who moves the bytes of started copies (the DMA engine's executor):
//
//   pltpu::dma_executor::on_core     the issuing core, at the first wait that needs them
//                                    (the block lands in the core's own cache)
//   pltpu::dma_executor::dma_thread  the device's DMA thread, while the core computes; the
//                                    waiting core moves the chunks the thread has not
//                                    reached yet. HBM->VMEM copies only: write-backs stay
//                                    on the core, as do copies checked mode tracks
//                                    (make_async_copy in checked builds) and every copy of
//                                    the eager and random orders
//   pltpu::dma_executor::automatic   (default) on_core when every CPU is busy with a core
//                                    (every DMA-thread design measured so lost 17-60% to
//                                    on_core) or the DMA thread was starved lately;
//                                    otherwise each kernel times its own launches under
//                                    both and keeps the faster, probing the other now and
//                                    then (executor_tuner.hpp: on one VM the DMA thread
//                                    took a third less time, then 40% more, minutes
//                                    apart).
//                                    Under the DMA thread, copies under 16 KiB stay on
//                                    the core
//
//   pltpu::set_dma_executor(pltpu::dma_executor::dma_thread);
//   { pltpu::scoped_dma_executor e(pltpu::dma_executor::on_core); kernel(); }
//   pltpu::last_launch_dma_executor()  // what the calling thread's last launch ran with
//
// PALLAS_DMA_ENGINE=inline|thread|auto sets the initial choice.

#include <pallas/config.hpp>
#include <pallas/detail/runtime/dma_order.hpp>
#include <pallas/detail/runtime/executor_tuner.hpp>

namespace pallas::tpu {

/// Who moves a copy's bytes: the DMA thread where a CPU is free and blocks are large
/// (automatic, the default), always the issuing core, or always the DMA thread.
enum class dma_executor { automatic, on_core, dma_thread };

}  // namespace pallas::tpu

namespace pallas::detail {

/// The executor PALLAS_DMA_ENGINE names (null or empty: automatic).
PALLAS_DECL tpu::dma_executor executor_from(char const* name);


}  // namespace pallas::detail

namespace pallas::tpu {

/// The executor the next launch uses.
PALLAS_DECL dma_executor get_dma_executor();

/// Sets the executor of the launches that start from now on.
PALLAS_DECL void set_dma_executor(dma_executor e);

/// The executor the calling thread's last launch ran with: dma_thread (the DMA thread
/// served its copies) or on_core; automatic before the thread's first launch. Under the
/// automatic executor it is what the kernel's measured choice picked for that launch.
inline dma_executor last_launch_dma_executor() noexcept {
  switch (detail::last_launch_executor) {
    case detail::dma_executor_choice::on_core: return dma_executor::on_core;
    case detail::dma_executor_choice::thread: return dma_executor::dma_thread;
    default: return dma_executor::automatic;
  }
}

/// Sets an executor for its lifetime, then restores the previous one.
class scoped_dma_executor {
 public:
  /// Uses `e` until the end of the scope.
  explicit scoped_dma_executor(dma_executor e) : previous_(get_dma_executor()) { set_dma_executor(e); }
  ~scoped_dma_executor() { set_dma_executor(previous_); }
  scoped_dma_executor(scoped_dma_executor const&) = delete;
  scoped_dma_executor& operator=(scoped_dma_executor const&) = delete;

 private:
  dma_executor previous_;
};

}  // namespace pallas::tpu

namespace pallas::detail {

/// The executor of a launch that starts now.
PALLAS_DECL dma_executor_choice launch_dma_executor();

}  // namespace pallas::detail

#if PALLAS_DEFINE_RUNTIME
#  include <pallas/tpu/dma_executor.ipp>
#endif
