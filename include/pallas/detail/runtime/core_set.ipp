// SPDX-License-Identifier: Apache-2.0
#pragma once
// core_set's launch machinery, compiled once per program under separate compilation
// (config.hpp) and inline in every translation unit otherwise.

#include <pallas/detail/runtime/core_set.hpp>

namespace pallas::detail {

PALLAS_DECL core_set::~core_set() {
  for (auto& w : workers_) w->thread.request_stop();
  for (auto& w : workers_) {
    w->epoch.fetch_add(1, std::memory_order_release);
    w->epoch.notify_one();
  }
  workers_.clear();  // joins
}

PALLAS_DECL void core_set::run_erased(launch_config const& config, std::uint64_t id, dma_thread* thread, void* job_object,
                void (*job)(void*, int)) {
  int const num_cores = config.num_cores;
  grow(num_cores);
  detail::launch_scope traced(id, config.name, config.who, num_cores, config.chips ? config.cores_per_chip : 0,
                              config.first_core, thread != nullptr);

  launch_state state;
  state.num_cores = num_cores;
  state.id = id;
  state.who = config.who;
  core_states_.resize(static_cast<std::size_t>(num_cores));
  for (int c = 0; c < num_cores; ++c) core_states_[static_cast<std::size_t>(c)] = cores_[static_cast<std::size_t>(c)].get();
  state.cores = core_states_.data();
  state.axis_name = config.axis_name;
  state.cores_per_chip = config.cores_per_chip > 0 ? config.cores_per_chip : num_cores;
  state.chips = config.chips;
  state.first_core = config.first_core;
  state.schedule = config.schedule;
  state.conventions = config.conventions;
  state.interleave.reset(state.schedule.order == dma_order::random && state.schedule.yield_cores, num_cores,
                         state.schedule.seed);
  // Every core's state is set up before any core runs, since cores read each other's
  // (semaphores, copies in flight, deadlock state). The workers are idle here.
  for (int c = 0; c < num_cores; ++c) {
    core_state& core = *core_states_[static_cast<std::size_t>(c)];
    // Cores past the DMA thread's table move their copies themselves.
    dma_thread* const served = core.dma_slot < dma_thread::max_engines ? thread : nullptr;
    core.vmem.reset(config.vmem_capacity_bytes);
    core.smem.reset(config.smem_capacity_bytes);
    core.semaphores.reset(core_state::semaphore_arena_bytes);
    core.dma.reset(state.schedule, state.schedule.seed * 0x2545f4914f6cdd1dull + static_cast<std::uint64_t>(core.index) + 1,
                   served, config.executor == dma_executor_choice::automatic ? automatic_thread_min_bytes : 0);
    if (served) served->attach(core.dma_slot, core.index, &core.dma);
    core.checked.reset(core.index,
                       memory_map{core.vmem.base(), core.vmem.capacity(), core.smem.base(), core.smem.capacity()},
                       core.semaphores.base(), core_state::semaphore_arena_bytes);
    core.state.store(run_state::running, std::memory_order_relaxed);
    core.acked.store(0, std::memory_order_relaxed);
    core.wait_cell.store(nullptr, std::memory_order_relaxed);
    core.semaphores_allocated.store(0, std::memory_order_relaxed);
    core.early_signals.clear();
    core.grid = nullptr;
    core.poll = {};
    core.launch = &state;
  }
  if constexpr (checked_mode) {
    // The race detector: races_found() describes this launch from now on.
    if (config.conventions.races != race_policy::off) {
      races_found_flag().store(false, std::memory_order_relaxed);
      if (num_cores > 1) {
        races_.reset(num_cores, config.conventions.races);
        if (config.chips) races_.name_chips(state.cores_per_chip);
        for (int c = 0; c < num_cores; ++c)
          core_states_[static_cast<std::size_t>(c)]->checked.attach_races(&races_, config.chips != nullptr);
      }
    }
  }
  auto run_core = [&](core_state& core) {
    current_core = &core;
    if constexpr (checked_mode) current_access_checker = &core.checked;
    core_error_context where(core_name(core));
    scoped_error_context push(where);
    try {
      interleave_begin(core);
      job(job_object, core.index);
    } catch (launch_aborted const&) {
    } catch (...) {
      state.fail_with(std::current_exception());
    }
    core.dma.quiesce();  // nothing of this launch moves on the DMA thread any more
    interleave_end(core);
    core.state.store(run_state::finished, std::memory_order_seq_cst);
    state.generation.fetch_add(1, std::memory_order_seq_cst);
    current_access_checker = nullptr;
    current_core = nullptr;
  };
  job_ = std::function<void(core_state&)>(std::ref(run_core));
  // Workers spin between launches only while every busy thread has a CPU.
  spin_.store(spinning_pays(num_cores), std::memory_order_relaxed);
  pending_.store(num_cores - 1, std::memory_order_relaxed);
  bool woke_parked = false;
  woken_.assign(static_cast<std::size_t>(num_cores), 0);
  if (num_cores > 1)
    posted_ns_.store(std::chrono::steady_clock::now().time_since_epoch().count(), std::memory_order_relaxed);
  for (int c = 1; c < num_cores; ++c) {
    worker& w = *workers_[static_cast<std::size_t>(c - 1)];
    std::uint32_t const epoch = w.epoch.fetch_add(1, std::memory_order_seq_cst) + 1;
    if (w.parked.load(std::memory_order_seq_cst)) {
      w.epoch.notify_one();
      woke_parked = true;
      woken_[static_cast<std::size_t>(c)] = epoch;
    }
  }
  run_core(*cores_[0]);
  // A parked worker takes 10-60 us to wake (longer when its CPU is busy): a core whose
  // worker has not started it yet runs here, after core 0 (which it cannot have been
  // waiting for, since core 0 finished).
  for (int c = 1; c < num_cores; ++c)
    if (std::uint32_t const epoch = woken_[static_cast<std::size_t>(c)]; epoch != 0) {
      worker& w = *workers_[static_cast<std::size_t>(c - 1)];
      if (claim(w, epoch)) {
        run_core(w.core);
        pending_.fetch_sub(1, std::memory_order_acq_rel);
      }
    }
  // Wait for the workers on the futex, never spinning after waking a parked one.
  bool const spin = !woke_parked && spin_.load(std::memory_order_relaxed);
  for (int left = pending_.load(std::memory_order_acquire); left != 0;) left = wait_for_change(pending_, left, spin);
  job_ = nullptr;
  for (int c = 0; c < num_cores; ++c) core_states_[static_cast<std::size_t>(c)]->launch = nullptr;
  if (state.first_error) std::rethrow_exception(state.first_error);
  if constexpr (checked_mode) check_semaphores_zero(state);
}

PALLAS_DECL void core_set::grow(int num_cores) {
  while (static_cast<int>(cores_.size()) < num_cores) {
    cores_.push_back(std::make_unique<core_state>(static_cast<int>(cores_.size())));
    cores_.back()->dma_slot = slots_.fetch_add(1, std::memory_order_relaxed);
    if (cores_.size() == 1) continue;  // core 0 runs on the launching thread
    auto w = std::make_unique<worker>(*cores_.back());
    worker* self = w.get();
    w->thread = std::jthread([this, self](std::stop_token stop) { serve(stop, *self); });
    workers_.push_back(std::move(w));
  }
}

PALLAS_DECL void core_set::adapt_slice(worker& self) noexcept {
  auto const now = std::chrono::steady_clock::now().time_since_epoch();
  auto const latency = now - std::chrono::steady_clock::duration(posted_ns_.load(std::memory_order_relaxed));
  bool const want = self.slice_rule.observe(latency, now);
  if (want == self.short_slices) return;
  request_short_slices(want);  // best effort: where the kernel ignores it, nothing changes
  self.short_slices = want;
}

PALLAS_DECL void core_set::serve(std::stop_token const& stop, worker& self) {
  std::uint32_t seen = 0;
  for (;;) {
    std::uint32_t now = self.epoch.load(std::memory_order_acquire);
    if (now == seen && spin_.load(std::memory_order_relaxed)) {
      auto const deadline = std::chrono::steady_clock::now() + idle_core_spin_budget;
      for (int k = 1; now == seen; ++k) {
        cpu_relax();
        now = self.epoch.load(std::memory_order_acquire);
        if ((k & 63) == 0) {
          if (std::chrono::steady_clock::now() > deadline) break;
          // The scheduler often wakes a parked worker on its launcher's CPU; spinning
          // there would keep the launcher, parked on pending_, off it for the whole budget.
          std::this_thread::yield();
        }
      }
    }
    if (now == seen) {
      self.parked.store(true, std::memory_order_seq_cst);
      while ((now = self.epoch.load(std::memory_order_seq_cst)) == seen) self.epoch.wait(seen, std::memory_order_seq_cst);
      self.parked.store(false, std::memory_order_relaxed);
    }
    seen = now;
    if (stop.stop_requested()) return;
    if (!claim(self, now)) continue;  // the launcher ran it (and maybe its launch is over)
    adapt_slice(self);
    job_(self.core);
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) pending_.notify_one();
  }
}

}  // namespace pallas::detail
