// SPDX-License-Identifier: Apache-2.0
#pragma once
// The device's creation, core set leases and DMA thread, compiled once per program under
// separate compilation (config.hpp) and inline in every translation unit otherwise.

#include <pallas/detail/runtime/device.hpp>

namespace pallas::detail {

PALLAS_DECL device& device::instance() {
  if (device* d = current_.load(std::memory_order_acquire)) [[likely]]
    return *d;
  std::lock_guard lock(creation_mutex_);
  hold_across_fork<&creation_mutex, &abandon_in_child>();
  device* d = current_.load(std::memory_order_relaxed);
  if (!d) {
    d = new device;
    current_.store(d, std::memory_order_release);
  }
  return *d;
}

PALLAS_DECL device::~device() {
  dma_thread_.reset();  // first: it reads the cores' DMA engines
  primary_.reset();     // joins the cores' threads
  spares_.clear();
}

PALLAS_DECL int device::num_threads() const {
  std::lock_guard lock(spares_mutex_);
  int n = primary_->num_cores();
  for (auto const& s : spares_) n += s->set.num_cores();
  return n;
}

PALLAS_DECL int device::num_spare_sets() const {
  std::lock_guard lock(spares_mutex_);
  return static_cast<int>(spares_.size());
}

PALLAS_DECL device::set_lease::set_lease(device& d) : dev(d) {
  {
    std::unique_lock lock(dev.primary_mutex_);
    if (dev.primary_free_.wait_for(lock, spill_after, [&] { return !dev.primary_busy_; })) {
      dev.primary_busy_ = true;
      set = dev.primary_.get();
      return;
    }
  }
  std::lock_guard lock(dev.spares_mutex_);
  for (auto& s : dev.spares_)
    if (!s->busy) {
      taken = s.get();
      break;
    }
  if (!taken) taken = dev.spares_.emplace_back(std::make_unique<spare>(dev.slots_)).get();
  taken->busy = true;
  set = &taken->set;
}

PALLAS_DECL device::set_lease::~set_lease() {
  if (taken) {
    std::lock_guard lock(dev.spares_mutex_);
    taken->busy = false;
    return;
  }
  {
    std::lock_guard lock(dev.primary_mutex_);
    dev.primary_busy_ = false;
  }
  dev.primary_free_.notify_one();
}

PALLAS_DECL dma_thread* device::dma_thread_for(launch_config const& config) {
  bool const wanted = config.schedule.order == dma_order::on_wait &&
                      (config.executor == dma_executor_choice::thread ||
                       (config.executor == dma_executor_choice::automatic && cpu_to_spare(config.num_cores) &&
                        !dma_thread_health::starved()));
  if (!wanted) return nullptr;
  std::lock_guard lock(dma_thread_mutex_);
  if (!dma_thread_) dma_thread_ = std::make_unique<dma_thread>();
  return dma_thread_.get();
}

PALLAS_DECL device::executor_timing::executor_timing(device& d, launch_config const& config)
    : thread(d.dma_thread_for(config)) {
  if (thread && config.executor == dma_executor_choice::automatic && config.tuner) {
    tuner = config.tuner;
    picked = tuner->pick();
    if (picked == executor_tuner::executor::on_core) thread = nullptr;
    start = std::chrono::steady_clock::now();
  }
  last_launch_executor = thread ? dma_executor_choice::thread : dma_executor_choice::on_core;
}

PALLAS_DECL void device::executor_timing::finished() {
  if (tuner) tuner->record(picked, std::chrono::steady_clock::now() - start);
}

PALLAS_DECL void device::abandon_in_child() noexcept {
  device* d = current_.load(std::memory_order_relaxed);
  if (!d) return;
  d->next_abandoned_ = abandoned_;
  abandoned_ = d;
  current_.store(nullptr, std::memory_order_relaxed);
}

}  // namespace pallas::detail
