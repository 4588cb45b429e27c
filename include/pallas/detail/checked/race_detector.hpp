// SPDX-License-Identifier: Apache-2.0
#pragma once
// Checked mode's happens-before race detector across the cores of a launch (Pallas
// interpret mode's detect_races). Every core carries a vector clock (vector_clock.hpp):
//
//   launch start        every clock is zero but the core's own entry: everything the
//                       launching thread did happens before every core
//   semaphore_signal    the signaller's clock joins the semaphore's clock, then ticks
//   copy start          the issuer's clock joins its DMA semaphore's clock, then ticks
//   any wait            a wait that returns joins the semaphore's clock into the waiter's
//                       (core barriers are signals and a wait, so they order too)
//
// Accesses to memory shared by the cores (HBM: kernel operands, pl::Array buffers; on
// several chips also every core's VMEM and SMEM, which remote copies write) are
// stamped with the core's own epoch in its shadow (access_shadow.hpp): copies read their
// source and write their destination at start(), block and element accesses go through
// checked_access.hpp's hooks. An access of core c conflicts with core d's last write of the
// same bytes (or, when c writes, d's last read) unless d's epoch is <= c's clock entry for
// d. A conflict is a race: reported once per pair of sites on stderr (policy report) or
// thrown as pallas::race_error (policy raise); either way races_found() turns true.
// A semaphore's clock is the join of every signal it ever received, as in the interpreter:
// a wait may learn more than the one signal it consumed (the detector errs on the side of
// no false reports).

#include <atomic>
#include <cstdint>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include <pallas/detail/checked/access_shadow.hpp>
#include <pallas/detail/checked/checked_access.hpp>
#include <pallas/detail/checked/memory_map.hpp>
#include <pallas/detail/checked/vector_clock.hpp>
#include <pallas/detail/runtime/dma_order.hpp>

namespace pallas::detail {

/// Whether the last launch that detected races found one (pltpu::races_found()).
std::atomic<bool>& races_found_flag();

/// Sites already reported (a race is printed once per pair of sites per process).
struct reported_races {
  std::mutex mutex;
  std::set<std::string> keys;
  static reported_races& instance();
};

class race_detector {
 public:
  /// Forgets everything (the start of a launch on `cores` cores).
  void reset(int cores, race_policy policy);

  /// Core `core`'s VMEM and SMEM (reports name them rather than calling them HBM).
  void name_memory(int core, memory_map const& mem);

  /// A launch on several chips: reports name `chip c core k` (chip_set.hpp's numbering).
  void name_chips(int cores_per_chip);

  race_policy policy() const noexcept { return policy_; }
  bool found() const;

  /// Core `core` signals `cell` (a semaphore count, or a copy's DMA semaphore).
  void release(int core, void const* cell);

  /// A wait of core `core` on `cell` returned.
  void acquire(int core, void const* cell);

  /// Core `core` accesses the bytes of `r` (shared memory). Reports or throws on a race.
  void access(int core, region const& r, bool is_write, access_site const& site);

 private:
  /// Checks, then records, one access; returns the message to throw ("" if none).
  std::string access_locked(int core, region const& r, bool is_write, access_site const& site);

  static std::string site_text(access_site const& s);

  /// Reports a race (once per pair of sites) and returns the message when it must throw.
  [[gnu::cold]] std::string race_found(int core, bool is_write, access_site const& site, int other, bool other_wrote,
                                       access_site const& other_site, std::uintptr_t from, std::uintptr_t to);

  mutable std::mutex mutex_;
  race_policy policy_ = race_policy::off;
  std::vector<vector_clock> clocks_;
  std::vector<access_shadow> shadows_;
  std::unordered_map<void const*, vector_clock> semaphores_;
  std::vector<memory_map> memories_;  ///< each core's VMEM and SMEM
  bool found_ = false;
  int cores_per_chip_ = 0;  ///< several chips: cores per chip (messages), else 0
};

}  // namespace pallas::detail

#if PALLAS_DEFINE_RUNTIME
#  include <pallas/detail/checked/race_detector.ipp>
#endif
