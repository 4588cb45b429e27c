// SPDX-License-Identifier: Apache-2.0
#pragma once
// The automatic executor's measured choice between the DMA thread and the issuing core, per
// kernel. Where the machine has a CPU to spare (device.hpp), which one is faster is not a
// property of the machine one can read: on the 2-vCPU VM this was built on, one core's
// pipelined add took 14 ms with the DMA thread against 21 ms on the core for minutes, then
// 22-24 ms against 16 ms for minutes (the host moving the vCPUs, which the guest cannot
// see). So each kernel (each pallas_call / pl::kernel / shard_map instantiation owns a
// tuner) times its own launches under both and keeps the faster:
//
//   - its first launch warms the caches and is not counted;
//   - then the DMA thread runs `probe_launches` launches and the core as many, and the one
//     with the shorter median time is kept;
//   - the kept one runs `interval` launches (8 at first, doubling up to 128 while probes
//     confirm it, back to 8 after a switch), then the other is probed again and replaces it
//     only if its median is `switch_margin` shorter than the median of the kept one's last
//     `probe_launches` launches;
//   - a probe stops at the first launch that took `give_up_margin` longer than that median
//     (where one executor is clearly faster, as measured here, each probe costs one launch).
//
// Medians, not best times: where the DMA thread was slower here it was also erratic (10.9 to
// 19.1 ms from one run to the next against a steady 16 ms), and the best of a few of its
// launches often beat the core while their mean lost by 20-40%. A median of three still
// ignores one slow launch (a page fault storm, a preempted core). Once the choice is stable
// the other executor runs one launch in 129 where it is clearly slower (at most 3 in 131):
// with the 33-40% gaps measured here that costs 0.3%, against 40% for a fixed wrong rule. Launches that overlap (several host
// threads launching one kernel) are all counted; the times are then noisier, not wrong.

#include <chrono>
#include <cstdint>
#include <mutex>

#include <pallas/config.hpp>
#include <pallas/detail/runtime/dma_order.hpp>

namespace pallas::detail {

/// The executor the calling thread's last launch ran with: thread (the DMA thread served
/// it) or on_core; automatic before the thread's first launch.
inline thread_local dma_executor_choice last_launch_executor = dma_executor_choice::automatic;

class executor_tuner {
 public:
  static constexpr int probe_launches = 3;
  static constexpr int first_interval = 8;
  static constexpr int longest_interval = 128;
  static constexpr double switch_margin = 0.03;
  static constexpr double give_up_margin = 0.10;

  /// Which executor a launch of this kernel uses.
  enum class executor : std::uint8_t { dma_thread, on_core };

  constexpr executor_tuner() = default;
  executor_tuner(executor_tuner const&) = delete;
  executor_tuner& operator=(executor_tuner const&) = delete;

  /// The executor of the launch that starts now; pass it back to record() with its time.
  executor pick();

  /// A launch under `e` took `took` (not called for launches that threw).
  void record(executor e, std::chrono::nanoseconds took);

  /// The executor kept now (the one between probes).
  executor kept() const;

  /// Launches run so far under each executor (tests, benchmarks).
  std::int64_t launches(executor e) const;

 private:
  enum class phase : std::uint8_t { warm_up, keep, probe };

  static constexpr executor other(executor e) noexcept {
    return e == executor::dma_thread ? executor::on_core : executor::dma_thread;
  }
  static constexpr int at(executor e) noexcept { return e == executor::dma_thread ? 0 : 1; }

  /// The median of an executor's last `probe_launches` times (ns).
  std::int64_t median(executor e) const noexcept;

  /// Ends a probe: keeps the executor with the shorter median time.
  void decide();

  mutable std::mutex mutex_;
  phase phase_ = phase::warm_up;
  executor kept_ = executor::dma_thread;
  int left_ = 1;                              ///< launches to hand out before the phase ends
  int interval_ = first_interval / 2;         ///< the last keep phase's length
  std::int64_t recent_[2][probe_launches]{};  ///< per executor: its last times (ns), a ring
  int filled_[2] = {0, 0};                    ///< per executor: times recorded since its ring was cleared
  std::int64_t launches_[2] = {0, 0};
};

}  // namespace pallas::detail

#if PALLAS_DEFINE_RUNTIME
#  include <pallas/detail/runtime/executor_tuner.ipp>
#endif
