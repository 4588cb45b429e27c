// SPDX-License-Identifier: Apache-2.0
#pragma once
// The trace as Chrome trace event JSON (Perfetto, chrome://tracing): one process per launch
// (pid = the launch's number, named by process_name metadata; a pl::shard_map's: one per
// chip, its cores numbered on the chip, spans with a "chip" argument), one thread per track of a
// core (its compute steps, each DMA lane), and a "launch" track spanning the whole launch.
// Each span's args hold its launch, core, bytes, operand, grid point, wall and CPU time.

#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <pallas/config.hpp>
#include <pallas/trace/event.hpp>

namespace pallas::detail {

void write_json_escaped(std::ostream& out, std::string_view s);

/// Microseconds with three decimals (ns resolution), never in exponent notation.
void write_us(std::ostream& out, std::int64_t ns);

/// A track of one launch: a core's compute steps or one of its DMA lanes.
struct track {
  std::uint64_t launch = 0;
  int core = 0;
  bool dma = false;
  int lane = 0;
  std::string label;
  auto key() const { return std::tie(launch, core, dma, lane); }
  bool operator<(track const& o) const { return key() < o.key(); }
};

inline track track_of(trace::event const& e) { return {e.launch, e.core, e.dma, e.dma ? e.lane : 0, {}}; }

/// The tracks the events use, sorted by launch, core, compute before DMA, lane.
[[gnu::cold]] std::vector<track> tracks_of(std::vector<trace::event> const& evs);

std::size_t index_of(std::vector<track> const& rows, trace::event const& e);

/// The earliest time of the trace (its zero).
std::int64_t origin_of(std::vector<trace::event> const& evs, std::vector<trace::launch_info> const& launches);

/// Where a launch's core goes in the trace: one process per launch (pid = the launch's
/// number), or for a pl::shard_map one process per chip, with the chip's own core numbers.
class trace_processes {
 public:
  explicit trace_processes(std::vector<trace::launch_info> const& launches);
  /// The chip of core `core` of launch `launch`, or -1 outside a device mesh.
  int chip(std::uint64_t launch, int core) const {
    auto const* l = info(launch);
    return l && l->cores_per_chip > 0 ? (l->first_core + core) / l->cores_per_chip : -1;
  }
  /// The core's number on its chip.
  int core_on_chip(std::uint64_t launch, int core) const {
    auto const* l = info(launch);
    return l && l->cores_per_chip > 0 ? (l->first_core + core) % l->cores_per_chip : core;
  }
  /// The process of a launch's core (a chip's: above every launch number).
  std::uint64_t pid(std::uint64_t launch, int core) const {
    int const c = chip(launch, core);
    return c < 0 ? launch : chip_pid(launch, c);
  }
  static std::uint64_t chip_pid(std::uint64_t launch, int chip) {
    return std::uint64_t{1} << 40 | launch << 12 | static_cast<std::uint64_t>(chip);
  }
  trace::launch_info const* info(std::uint64_t launch) const;

 private:
  std::map<std::uint64_t, trace::launch_info const*> of_;
};

/// "#3 ring (pl::shard_map) chip 1 (2 cores)".
std::string chip_label(trace::launch_info const& l, int chip);

[[gnu::cold]] void write_json(std::ostream& out, std::vector<trace::event> const& evs, std::vector<trace::launch_info> const& launches);

}  // namespace pallas::detail

#if PALLAS_DEFINE_RUNTIME
#  include <pallas/trace/json.ipp>
#endif
