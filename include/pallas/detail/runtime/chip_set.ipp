// SPDX-License-Identifier: Apache-2.0
#pragma once
// The chips' remote copies and signals in process, and address translation, compiled once
// per program under separate compilation (config.hpp) and inline in every translation unit
// otherwise.

#include <algorithm>

#include <pallas/detail/runtime/chip_set.hpp>

namespace pallas::detail {

PALLAS_DECL void chip_transport::start_elsewhere(core_state& me, dma_task const& /*task*/,
                                                 std::atomic<std::int32_t>* /*send*/, int /*target*/,
                                                 std::int64_t /*recv_offset*/, place /*where*/) {
  fail("pallas: a remote copy to another process from ", me.index, " without a multi-process backend");
}

PALLAS_DECL void chip_transport::signal_elsewhere(core_state& me, int /*target*/, std::int64_t /*offset*/,
                                                  std::int32_t /*inc*/) {
  fail("pallas: a remote signal to another process from ", me.index, " without a multi-process backend");
}

PALLAS_DECL void signal_remote_semaphore(launch_state& launch, int target, std::int64_t offset, std::int32_t inc,
                                         int from) {
  core_state& other = core_of_launch(launch, target);
  auto* cell = reinterpret_cast<std::atomic<std::int32_t>*>(other.semaphores.base() + offset);
  auto const end = offset + static_cast<std::int64_t>(sizeof(std::int32_t));
  if (end > other.semaphores_allocated.load(std::memory_order_acquire)) {
    std::lock_guard lock(other.early_mutex);
    if (end > other.semaphores_allocated.load(std::memory_order_relaxed)) {
      other.early_signals.push_back({offset, inc, from, "a remote copy's receive semaphore"});
      return;
    }
  }
  cell->fetch_add(inc, std::memory_order_acq_rel);
}

PALLAS_DECL void run_remote_task(launch_state& launch, remote_task const& t) {
  t.task.move_bytes();
  if (t.send) t.send->fetch_add(t.task.bytes, std::memory_order_acq_rel);
  signal_remote_semaphore(launch, t.target, t.recv_offset, t.task.bytes, t.sender);
}

PALLAS_DECL void in_process_transport::start(launch_state& launch, remote_task const& t, bool now) {
  if (now) return run_remote_task(launch, t);
  std::lock_guard lock(mutex_);
  pending_.push_back(t);
}

PALLAS_DECL bool in_process_transport::progress(launch_state& launch, void const* cell) {
  remote_task t;
  {
    std::lock_guard lock(mutex_);
    auto it = std::find_if(pending_.begin(), pending_.end(),
                           [&](remote_task const& p) { return p.send == cell || p.recv == cell; });
    if (it == pending_.end()) return false;
    t = *it;
    pending_.erase(it);
  }
  run_remote_task(launch, t);
  return true;
}

PALLAS_DECL bool in_process_transport::pending_for(void const* cell) {
  std::lock_guard lock(mutex_);
  return std::any_of(pending_.begin(), pending_.end(),
                     [&](remote_task const& p) { return p.send == cell || p.recv == cell; });
}

PALLAS_DECL std::size_t in_process_transport::leftovers() {
  std::lock_guard lock(mutex_);
  std::size_t const n = pending_.size();
  for (auto const& t : pending_) t.task.move_bytes();
  pending_.clear();
  return n;
}

PALLAS_DECL std::string chip_context::axes_list() const {
  std::string s;
  for (int a = 0; a < num_axes; ++a) s += (a ? ", '" : "'") + std::string(axis_names[a]) + "'";
  return s;
}

PALLAS_DECL std::byte* translate_to_core(core_state const& me, void const* p, core_state const& target) {
  auto const* b = static_cast<std::byte const*>(p);
  auto within = [&](arena const& a) { return b >= a.base() && b < a.base() + a.capacity(); };
  if (within(me.vmem)) return target.vmem.base() + (b - me.vmem.base());
  if (within(me.smem)) return target.smem.base() + (b - me.smem.base());
  if (within(me.semaphores)) return target.semaphores.base() + (b - me.semaphores.base());
  chip_context const& chips = *me.launch->chips;
  if (chip_index(me) == chip_index(target)) {  // the chip's own HBM (the only one a process may hold)
    for (auto const& buf : chips.buffers[static_cast<std::size_t>(chip_index(me))])
      if (b >= buf.base && b < buf.base + buf.bytes) return const_cast<std::byte*>(b);
    return nullptr;
  }
  auto const& mine = chips.buffers[static_cast<std::size_t>(chip_index(me))];
  auto const& theirs = chips.buffers[static_cast<std::size_t>(chip_index(target))];
  for (std::size_t k = 0; k < mine.size(); ++k)
    if (b >= mine[k].base && b < mine[k].base + mine[k].bytes) return theirs[k].base + (b - mine[k].base);
  return nullptr;
}

}  // namespace pallas::detail
