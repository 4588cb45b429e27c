#pragma once
// Asynchronous copies: `pltpu::make_async_copy(src, dst, sem)` makes a descriptor whose
// start() issues the copy and whose wait() blocks until the DMA semaphore holds the
// descriptor's byte count, then subtracts it. Several copies may share one semaphore; a
// descriptor made only to wait (for a copy started elsewhere) works.
//
// The engine: a started copy is queued on the issuing core and its bytes move no later
// than the wait that needs them, on that core (measured fastest on CPUs: the block stays
// in the core's cache). Reading the destination or writing the source before wait() is a
// race, as on hardware.

#include <type_traits>

#include <pallas/detail/dma_task.hpp>
#include <pallas/ref.hpp>
#include <pallas/tpu/device.hpp>
#include <pallas/tpu/semaphore.hpp>
#include <pallas/tpu/sync_copy.hpp>

namespace pallas::tpu {

template <class Src, class Dst, class Sem>
class async_copy_descriptor {
 public:
  async_copy_descriptor(Src src, Dst dst, Sem sem) : src_(src), dst_(dst), sem_(sem) {
    pallas::detail::check_copy_extents(src_, dst_, "make_async_copy");
  }

  /// Issues the copy.
  void start() const {
    auto& core = pallas::detail::this_core("async_copy.start");
    core.launch->check_aborted();
    auto task = pallas::detail::dma_task::make(src_, dst_);
    task.semaphore = &sem_.data()->count;
    task.id = next_id(core);
    core.dma_queue.push_back(task);
  }

  /// Blocks until the semaphore holds this copy's byte count, then subtracts it.
  void wait() const {
    auto& core = pallas::detail::this_core("async_copy.wait");
    pallas::detail::wait_on_semaphore(core, sem_.data()->count, bytes(), "async_copy.wait");
  }

  /// The bytes this descriptor's wait() consumes.
  std::int32_t bytes() const noexcept {
    return static_cast<std::int32_t>(dst_.size() * static_cast<index_t>(sizeof(typename Dst::value_type)));
  }

  Src const& src() const noexcept { return src_; }
  Dst const& dst() const noexcept { return dst_; }
  Sem const& semaphore() const noexcept { return sem_; }

 private:
  static std::uint64_t next_id(pallas::detail::core_state& core) {
    return core.dma_queue.empty() ? 1 : core.dma_queue.back().id + 1;
  }

  Src src_;
  Dst dst_;
  Sem sem_;
};

/// `pltpu.make_async_copy(src, dst, sem)`.
template <AnyRef Src, AnyRef Dst, SemaphoreRef Sem>
auto make_async_copy(Src const& src, Dst const& dst, Sem const& sem) {
  pallas::detail::check_copy_types<Src, Dst>("make_async_copy");
  static_assert(Sem::rank() == 0,
                "pallas::make_async_copy: the semaphore must be ()-shaped; pick one with .at(i)");
  static_assert(std::is_same_v<typename Sem::value_type, semaphore<semaphore_kind::dma>>,
                "pallas::make_async_copy: the semaphore must be a DMA semaphore "
                "(pltpu::SemaphoreType::DMA)");
  return async_copy_descriptor<Src, Dst, Sem>(src, dst, sem);
}

/// `pltpu.async_copy(src, dst, sem)`: make_async_copy(...).start(); returns the descriptor.
template <AnyRef Src, AnyRef Dst, SemaphoreRef Sem>
auto async_copy(Src const& src, Dst const& dst, Sem const& sem) {
  auto copy = make_async_copy(src, dst, sem);
  copy.start();
  return copy;
}

}  // namespace pallas::tpu
