// SPDX-License-Identifier: Apache-2.0
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
// scratch and run_scoped semaphores), so a core may signal another's run_scoped semaphore
// before that core reaches the scope: the signal counts once it allocates it. Checked
// mode: a semaphore must be zero when the kernel (or its run_scoped) ends, and a signal
// must have reached its semaphore by then; a wait nothing can satisfy any more is a
// pallas::deadlock_error.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <new>
#include <thread>
#include <type_traits>
#include <vector>

#include <pallas/config.hpp>
#include <pallas/detail/checked/checked_access.hpp>
#include <pallas/detail/runtime/dma_engine_ops.hpp>
#include <pallas/detail/runtime/polling.hpp>
#include <pallas/detail/runtime/spin_wait.hpp>
#include <pallas/detail/runtime/trace_hooks.hpp>
#include <pallas/error.hpp>
#include <pallas/memory_space.hpp>
#include <pallas/ref.hpp>
#include <pallas/shape.hpp>
#include <pallas/detail/runtime/device.hpp>

namespace pallas::tpu {

/// The kinds of `pltpu.SemaphoreType`: REGULAR (signal/wait), DMA (copy completion, counted in
/// bytes), BARRIER (core_barrier).
enum class semaphore_kind { regular, dma, barrier };

/// One semaphore. Its count is int32, as on hardware.
template <semaphore_kind Kind>
struct semaphore {
  static constexpr semaphore_kind kind = Kind;  ///< its kind
  std::atomic<std::int32_t> count{0};  ///< its value
};

}  // namespace pallas::tpu

namespace pallas::detail {

template <tpu::semaphore_kind Kind, index_t... Dims>
struct semaphore_buffer {
  static_assert(((Dims > 0) && ...), "pallas::SemaphoreType: every extent must be > 0");
  using shape_type = shape<Dims...>;
  using ref_type = Ref<tpu::semaphore<Kind>, shape_type, memory_space::semaphore>;
  static constexpr memory_space space = memory_space::semaphore;
  static constexpr std::int64_t vmem_bytes = 0;
  static constexpr std::int64_t smem_bytes = 0;
  static constexpr bool is_semaphore = true;
  static constexpr index_t count = (index_t{1} * ... * Dims);

  static constexpr char const* kind_name() noexcept {
    return Kind == tpu::semaphore_kind::regular ? "REGULAR" : Kind == tpu::semaphore_kind::dma ? "DMA" : "BARRIER";
  }

  /// Fresh zeroed semaphores. Every core allocates in the same order, so a semaphore has
  /// the same offset, its id, on every core. Signals other cores sent to them before this
  /// core got here count now.
  static ref_type allocate(core_state& core) {
    std::byte* p = core.semaphores.allocate(count * static_cast<std::int64_t>(sizeof(tpu::semaphore<Kind>)),
                                            "semaphores");
    auto* first = new (p) tpu::semaphore<Kind>[static_cast<std::size_t>(count)];
    std::int64_t const begin = p - core.semaphores.base();
    if constexpr (checked_mode)
      core.checked.add_semaphores(begin, count, static_cast<std::int64_t>(sizeof(tpu::semaphore<Kind>)), kind_name());
    std::lock_guard lock(core.early_mutex);
    core.semaphores_allocated.store(core.semaphores.used(), std::memory_order_release);
    std::erase_if(core.early_signals, [&](early_signal const& s) {
      if (s.offset < begin || s.offset >= core.semaphores.used()) return false;
      first[(s.offset - begin) / static_cast<std::int64_t>(sizeof(tpu::semaphore<Kind>))].count.fetch_add(
          s.inc, std::memory_order_acq_rel);
      return true;
    });
    return ref_type(first, shape_type{});
  }
};

}  // namespace pallas::detail

namespace pallas::tpu {

/// `pltpu.SemaphoreType`: `SemaphoreType::REGULAR<>`, `SemaphoreType::DMA<4>`, ...
struct SemaphoreType {
  /// Semaphores to signal and wait: `REGULAR<>` (one), `REGULAR<4>` (an array).
  template <index_t... Dims>
  using REGULAR = detail::semaphore_buffer<semaphore_kind::regular, Dims...>;
  /// Copy-completion semaphores for make_async_copy.
  template <index_t... Dims>
  using DMA = detail::semaphore_buffer<semaphore_kind::dma, Dims...>;
  /// Barrier semaphores.
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

/// Where a signal goes: a semaphore, and whether its core has not allocated it yet (then
/// `sem` is where it will be, and the increment waits in that core's early signals).
template <class Sem>
struct signal_target {
  Sem* sem;
  bool deferred;
};

/// Core `core_index` of the caller's chip as an index among the launch's cores (a launch
/// on several chips numbers every chip's cores; chip_set.hpp).
inline index_t global_core_index(core_state const& me, index_t core_index) {
  int const per_chip = me.launch->cores_per_chip;
  if (core_index < 0 || core_index >= per_chip)
    fail<index_error>("pallas::semaphore_signal: core_index ", core_index, " is out of range for ", per_chip,
                      per_chip == 1 ? " core" : " cores");
  return chip_index(me) * per_chip + core_index - me.launch->first_core;  // the chip's cores are in this process
}

/// The same semaphore (same id) on core `core_index` of the launch. When that core has not
/// allocated it yet, `inc` is kept and added when it does (a run_scoped semaphore of a
/// scope the other core has not reached: Pallas' cross-core barrier idiom).
template <tpu::semaphore_kind K>
signal_target<tpu::semaphore<K>> semaphore_on_core(core_state& me, tpu::semaphore<K>* mine, index_t core_index,
                                                   std::int32_t inc) {
  if (core_index < 0 || core_index >= me.launch->num_cores)
    fail<index_error>("pallas::semaphore_signal: core_index ", core_index, " is out of range for ",
                      me.launch->num_cores, " cores");
  auto const offset = reinterpret_cast<std::byte*>(mine) - me.semaphores.base();
  if (offset < 0 || offset >= me.semaphores.capacity())
    fail("pallas::semaphore_signal: only semaphores of a kernel's scratch or of run_scoped can be signaled on "
         "another core");
  core_state& other = *me.launch->cores[core_index];
  auto* const theirs = std::launder(reinterpret_cast<tpu::semaphore<K>*>(other.semaphores.base() + offset));
  auto const end = offset + static_cast<std::ptrdiff_t>(sizeof(tpu::semaphore<K>));
  if (end > other.semaphores_allocated.load(std::memory_order_acquire)) {
    std::lock_guard lock(other.early_mutex);
    if (end > other.semaphores_allocated.load(std::memory_order_relaxed)) {
      other.early_signals.push_back({offset, inc, me.index, checked_mode ? me.checked.semaphore_name(mine) : ""});
      return {theirs, true};
    }
  }
  return {theirs, false};
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
  detail::end_polling(core);
  detail::perturb(core);
  if (inc < 0 || inc > INT32_MAX)
    detail::fail("pallas::semaphore_signal: increment ", inc, " is not a non-negative int32 (",
                 where.file_name(), ':', where.line, ')');
  auto const [target, deferred] =
      core_index < 0 ? detail::signal_target<std::remove_cvref_t<decltype(*sem.data())>>{sem.data(), false}
                     : detail::semaphore_on_core(core, sem.data(), detail::global_core_index(core, core_index),
                                                 static_cast<std::int32_t>(inc));
  if constexpr (checked_mode) core.checked.race_release(&target->count);
  if (deferred) return;  // kept until that core allocates the semaphore
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
  // A DMA semaphore counts bytes its copies deliver; only the copy's .wait() knows how many.
  static_assert(std::remove_cvref_t<decltype(*sem.data())>::kind != tpu::semaphore_kind::dma,
                "pallas::semaphore_wait: a DMA semaphore is waited on with the copy's .wait() "
                "(make_async_copy / make_async_remote_copy), not semaphore_wait");
  auto& core = detail::this_core("semaphore_wait");
  if (value < 0 || value > INT32_MAX)
    detail::fail("pallas::semaphore_wait: value ", value, " is not a non-negative int32 (", where.file_name(), ':',
                 where.line, ')');
  detail::traced_wait traced(core, &sem.data()->count, static_cast<std::int32_t>(value), "semaphore_wait", false);
  detail::wait_on_semaphore(core, sem.data()->count, static_cast<std::int32_t>(value), "semaphore_wait", where);
}

/// `pl.semaphore_read(sem)`: the current count. A loop polling a REGULAR or BARRIER
/// semaphore that nothing can change any more is a pallas::deadlock_error (polling.hpp).
template <SemaphoreRef S>
std::int32_t semaphore_read(S const& sem, detail::place where = detail::place::here()) {
  static_assert(S::rank() == 0, "pallas::semaphore_read: the semaphore must be ()-shaped; pick one with .at(i)");
  auto const& cell = sem.data()->count;
  detail::core_state* core = detail::current_core;
  if (!core) return cell.load(std::memory_order_acquire);
  core->launch->check_aborted();    // a polling loop unwinds when another core failed
  detail::interleave_point(*core);  // a loop polling it lets others run
  detail::take_remote_signals(*core->launch, &cell);  // over MPI: what other chips signaled
  std::int32_t const value = cell.load(std::memory_order_acquire);
  // A DMA semaphore may be counting a copy still queued on this core: not a wait to judge.
  if constexpr (std::remove_cvref_t<decltype(*sem.data())>::kind != tpu::semaphore_kind::dma)
    detail::note_semaphore_read(*core, cell, value, where);
  return value;
}

}  // namespace pallas
