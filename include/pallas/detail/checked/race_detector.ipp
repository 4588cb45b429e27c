// SPDX-License-Identifier: Apache-2.0
#pragma once
// The race detector's definitions, compiled once per program under separate compilation.

#include <pallas/detail/checked/race_detector.hpp>

#include <iostream>
#include <sstream>

#include <pallas/error.hpp>

namespace pallas::detail {

PALLAS_DECL std::atomic<bool>& races_found_flag() {
  static std::atomic<bool> flag{false};
  return flag;
}

PALLAS_DECL reported_races& reported_races::instance() {
  static reported_races* const r = new reported_races;  // never destroyed: launches may run at exit
  return *r;
}

PALLAS_DECL void race_detector::reset(int cores, race_policy policy) {
  std::lock_guard lock(mutex_);
  policy_ = policy;
  clocks_.assign(static_cast<std::size_t>(cores), vector_clock(cores));
  for (int c = 0; c < cores; ++c) clocks_[static_cast<std::size_t>(c)].set(c, 1);
  shadows_.assign(static_cast<std::size_t>(cores), access_shadow{});
  semaphores_.clear();
  memories_.assign(static_cast<std::size_t>(cores), memory_map{});
  found_ = false;
  cores_per_chip_ = 0;
}

PALLAS_DECL void race_detector::name_memory(int core, memory_map const& mem) {
  std::lock_guard lock(mutex_);
  memories_[static_cast<std::size_t>(core)] = mem;
}

PALLAS_DECL void race_detector::name_chips(int cores_per_chip) {
  std::lock_guard lock(mutex_);
  cores_per_chip_ = cores_per_chip;
}

PALLAS_DECL bool race_detector::found() const {
  std::lock_guard lock(mutex_);
  return found_;
}

PALLAS_DECL void race_detector::release(int core, void const* cell) {
  std::lock_guard lock(mutex_);
  vector_clock& mine = clocks_[static_cast<std::size_t>(core)];
  semaphores_[cell].join(mine);
  mine.tick(core);
}

PALLAS_DECL void race_detector::acquire(int core, void const* cell) {
  std::lock_guard lock(mutex_);
  auto it = semaphores_.find(cell);
  if (it != semaphores_.end()) clocks_[static_cast<std::size_t>(core)].join(it->second);
}

PALLAS_DECL void race_detector::access(int core, region const& r, bool is_write, access_site const& site) {
  std::string message;
  {
    std::lock_guard lock(mutex_);
    message = access_locked(core, r, is_write, site);
  }
  if (!message.empty()) fail<race_error>(message);
}

PALLAS_DECL std::string race_detector::access_locked(int core, region const& r, bool is_write, access_site const& site) {
  if (r.empty()) return {};
  vector_clock const& mine = clocks_[static_cast<std::size_t>(core)];
  std::uint64_t const epoch = mine[core];
  access_shadow& own = shadows_[static_cast<std::size_t>(core)];
  std::string message;
  bool reported = false;
  auto each_run = [&](auto&& f) {
    if (r.rank == 0) {
      f(reinterpret_cast<std::uintptr_t>(r.base), reinterpret_cast<std::uintptr_t>(r.base) + static_cast<std::uintptr_t>(r.run));
      return;
    }
    for (std::int64_t k = 0, n = r.runs(); k < n; ++k) {
      auto const a = reinterpret_cast<std::uintptr_t>(r.run_start(k));
      f(a, a + static_cast<std::uintptr_t>(r.run));
    }
  };
  each_run([&](std::uintptr_t a, std::uintptr_t b) {
    if (!reported) {
      for (int d = 0; d < static_cast<int>(shadows_.size()) && !reported; ++d) {
        if (d == core || shadows_[static_cast<std::size_t>(d)].empty()) continue;
        std::uint64_t const known = mine[d];
        reported = shadows_[static_cast<std::size_t>(d)].any_overlapping(a, b, [&](std::uintptr_t lo, shadow_segment const& s) {
          bool const after_write = s.write_epoch > known;
          bool const after_read = is_write && s.read_epoch > known;
          if (!after_write && !after_read) return false;
          std::uintptr_t const from = lo > a ? lo : a, to = s.hi < b ? s.hi : b;
          message = race_found(core, is_write, site, d, after_write, after_write ? s.write_site : s.read_site, from, to);
          return true;
        });
      }
    }
    own.record(a, b, is_write, epoch, site);
  });
  return message;
}

PALLAS_DECL std::string race_detector::site_text(access_site const& s) {
  std::ostringstream out;
  out << s.what;
  if (s.where.known()) out << " at " << s.where.file_name() << ':' << s.where.line;
  return out.str();
}

PALLAS_DECL std::string race_detector::race_found(int core, bool is_write, access_site const& site, int other, bool other_wrote,
                       access_site const& other_site, std::uintptr_t from, std::uintptr_t to) {
  found_ = true;
  races_found_flag().store(true, std::memory_order_relaxed);
  std::ostringstream out;
  auto const name = [&](int c) {
    if (cores_per_chip_ == 0) return "core " + std::to_string(c);
    return "chip " + std::to_string(c / cores_per_chip_) + " core " + std::to_string(c % cores_per_chip_);
  };
  std::string memory = "HBM";
  for (std::size_t c = 0; c < memories_.size(); ++c)
    if (memory_space const s = memories_[c].space_of(reinterpret_cast<void const*>(from)); s != memory_space::hbm)
      memory = (s == memory_space::vmem ? "VMEM of " : "SMEM of ") + name(static_cast<int>(c));
  out << "pallas::race: " << name(core) << (is_write ? " writes " : " reads ") << memory << " bytes [0x" << std::hex
      << from
      << ", 0x" << to << std::dec << ") (" << (to - from) << " bytes) by " << site_text(site) << ", and "
      << name(other)
      << (other_wrote ? " wrote" : " read") << " them by " << site_text(other_site)
      << ", with nothing ordering the two (no semaphore wait, barrier or DMA wait between them)";
  if (policy_ == race_policy::raise) return out.str();
  std::string const key = site_text(site) + (is_write ? "/w|" : "/r|") + site_text(other_site) + (other_wrote ? "/w" : "/r");
  auto& seen = reported_races::instance();
  std::lock_guard lock(seen.mutex);
  if (seen.keys.insert(key).second) std::cerr << out.str() << '\n';
  return {};
}

}  // namespace pallas::detail
