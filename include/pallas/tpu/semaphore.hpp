#pragma once
// Semaphores: counters a core waits on. REGULAR ones are signaled by cores (possibly
// another core's: `core_index`), DMA ones by copies (they count bytes), BARRIER ones by
// barriers. Scratch types: `pltpu::SemaphoreType::DMA<>` (one) and
// `pltpu::SemaphoreType::DMA<2>` (an array; pick one with `.at(i)`).
//
//   pl::semaphore_signal(sem, inc = 1, core_index = -1)   add inc (on core core_index)
//   pl::semaphore_wait(sem, value = 1)                    block until >= value, subtract
//   pl::semaphore_read(sem)                               the count
//
// A semaphore has the same id on every core (every core allocates the same sequence of
// scratch and run_scoped semaphores). Checked mode: a semaphore must be zero when the
// kernel (or its run_scoped) ends; signaling a core that has not allocated the semaphore
// (yet) is an error; a wait nothing can satisfy any more is a pallas::deadlock_error.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <new>
#include <thread>
#include <type_traits>

#include <pallas/config.hpp>
#include <pallas/detail/checked_access.hpp>
#include <pallas/detail/dma_engine.hpp>
#include <pallas/detail/spin_wait.hpp>
#include <pallas/error.hpp>
#include <pallas/memory_space.hpp>
#include <pallas/ref.hpp>
#include <pallas/shape.hpp>
#include <pallas/tpu/device.hpp>

namespace pallas::tpu {

enum class semaphore_kind { regular, dma, barrier };

/// One semaphore. Its count is int32, as on hardware.
template <semaphore_kind Kind>
struct semaphore {
  static constexpr semaphore_kind kind = Kind;
  std::atomic<std::int32_t> count{0};
};

namespace detail {

template <semaphore_kind Kind, index_t... Dims>
struct semaphore_buffer {
  static_assert(((Dims > 0) && ...), "pallas::SemaphoreType: every extent must be > 0");
  using shape_type = shape<Dims...>;
  using ref_type = Ref<semaphore<Kind>, shape_type, memory_space::semaphore>;
  static constexpr memory_space space = memory_space::semaphore;
  static constexpr std::int64_t vmem_bytes = 0;
  static constexpr std::int64_t smem_bytes = 0;
  static constexpr bool is_semaphore = true;
  static constexpr index_t count = (index_t{1} * ... * Dims);

  static constexpr char const* kind_name() noexcept {
    return Kind == semaphore_kind::regular ? "REGULAR" : Kind == semaphore_kind::dma ? "DMA" : "BARRIER";
  }

  /// Fresh zeroed semaphores. Every core allocates in the same order, so a semaphore has
  /// the same offset, its id, on every core.
  static ref_type allocate(pallas::detail::core_state& core) {
    std::byte* p = core.semaphores.allocate(count * static_cast<std::int64_t>(sizeof(semaphore<Kind>)),
                                            "semaphores");
    auto* first = new (p) semaphore<Kind>[static_cast<std::size_t>(count)];
    if constexpr (checked_mode)
      core.checked.add_semaphores(p - core.semaphores.base(), count,
                                  static_cast<std::int64_t>(sizeof(semaphore<Kind>)), kind_name());
    core.semaphores_allocated.store(core.semaphores.used(), std::memory_order_release);
    return ref_type(first, shape_type{});
  }
};

}  // namespace detail

/// `pltpu.SemaphoreType`: `SemaphoreType::REGULAR<>`, `SemaphoreType::DMA<4>`, ...
struct SemaphoreType {
  template <index_t... Dims>
  using REGULAR = detail::semaphore_buffer<semaphore_kind::regular, Dims...>;
  template <index_t... Dims>
  using DMA = detail::semaphore_buffer<semaphore_kind::dma, Dims...>;
  template <index_t... Dims>
  using BARRIER = detail::semaphore_buffer<semaphore_kind::barrier, Dims...>;
};

}  // namespace pallas::tpu

namespace pallas {

namespace detail {

template <class T>
struct is_semaphore_ref : std::false_type {};
template <tpu::semaphore_kind K, class Sh, class St>
struct is_semaphore_ref<Ref<tpu::semaphore<K>, Sh, memory_space::semaphore, St>> : std::true_type {};

/// The same semaphore (same id) on core `core_index` of the launch.
template <tpu::semaphore_kind K>
tpu::semaphore<K>* semaphore_on_core(core_state& me, tpu::semaphore<K>* mine, index_t core_index) {
  if (core_index < 0 || core_index >= me.launch->num_cores)
    fail<index_error>("pallas::semaphore_signal: core_index ", core_index, " is out of range for ",
                      me.launch->num_cores, " cores");
  auto const offset = reinterpret_cast<std::byte*>(mine) - me.semaphores.base();
  if (offset < 0 || offset >= me.semaphores.capacity())
    fail("pallas::semaphore_signal: only semaphores of a kernel's scratch or of run_scoped can be signaled on "
         "another core");
  core_state& other = *me.launch->cores[core_index];
  if constexpr (checked_mode) {
    auto const allocated = other.semaphores_allocated.load(std::memory_order_acquire);
    if (offset + static_cast<std::ptrdiff_t>(sizeof(tpu::semaphore<K>)) > allocated)
      fail("pallas::semaphore_signal: core ", core_index, " has not allocated ",
           me.checked.semaphore_name(mine),
           " (now); every core must allocate the same semaphores (scratch, then run_scoped) before "
           "others signal them");
  }
  return std::launder(reinterpret_cast<tpu::semaphore<K>*>(other.semaphores.base() + offset));
}

}  // namespace detail

/// A semaphore ref (any kind, any shape).
template <class T>
concept SemaphoreRef = detail::is_semaphore_ref<std::remove_cvref_t<T>>::value;

/// `pl.semaphore_signal(sem, inc, core_index=...)`: adds `inc` to the semaphore, on this
/// core or, with core_index >= 0, on that core.
template <SemaphoreRef S>
void semaphore_signal(S const& sem, index_t inc = 1, index_t core_index = -1,
                      detail::place where = detail::place::here()) {
  static_assert(S::rank() == 0, "pallas::semaphore_signal: the semaphore must be ()-shaped; pick one with .at(i)");
  auto& core = detail::this_core("semaphore_signal");
  core.launch->check_aborted();
  detail::perturb(core);
  auto* target = core_index < 0 ? sem.data() : detail::semaphore_on_core(core, sem.data(), core_index);
  if (inc < 0 || inc > INT32_MAX)
    detail::fail("pallas::semaphore_signal: increment ", inc, " is not a non-negative int32 (",
                 where.file_name(), ':', where.line, ')');
  std::int32_t const old = target->count.fetch_add(static_cast<std::int32_t>(inc), std::memory_order_acq_rel);
  if constexpr (checked_mode) {
    if (old > INT32_MAX - static_cast<std::int32_t>(inc))
      detail::fail("pallas::semaphore_signal: ", core.checked.semaphore_name(sem.data()), " overflows int32 (",
                   old, " + ", inc, ") at ", where.file_name(), ':', where.line);
  }
}

/// `pl.semaphore_wait(sem, value)`: blocks until the count is >= value, then subtracts it.
template <SemaphoreRef S>
void semaphore_wait(S const& sem, index_t value = 1, detail::place where = detail::place::here()) {
  static_assert(S::rank() == 0, "pallas::semaphore_wait: the semaphore must be ()-shaped; pick one with .at(i)");
  auto& core = detail::this_core("semaphore_wait");
  if (value < 0 || value > INT32_MAX)
    detail::fail("pallas::semaphore_wait: value ", value, " is not a non-negative int32 (", where.file_name(), ':',
                 where.line, ')');
  detail::wait_on_semaphore(core, sem.data()->count, static_cast<std::int32_t>(value), "semaphore_wait", where);
}

/// `pl.semaphore_read(sem)`: the current count.
template <SemaphoreRef S>
std::int32_t semaphore_read(S const& sem) {
  static_assert(S::rank() == 0, "pallas::semaphore_read: the semaphore must be ()-shaped; pick one with .at(i)");
  return sem.data()->count.load(std::memory_order_acquire);
}

}  // namespace pallas
