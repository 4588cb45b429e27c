// SPDX-License-Identifier: Apache-2.0
#pragma once
// The trace as Chrome trace event JSON (Perfetto, chrome://tracing): one process per launch
// (pid = the launch's number, named by process_name metadata; a pl::shard_map's: one per
// chip, its cores numbered on the chip, spans with a "chip" argument), one thread per track of a
// core (its compute steps, each DMA lane), and a "launch" track spanning the whole launch.
// Each span's args hold its launch, core, bytes, operand, grid point, wall and CPU time.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <ostream>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <pallas/trace/event.hpp>

namespace pallas::detail {

inline void write_json_escaped(std::ostream& out, std::string_view s) {
  for (char ch : s) {
    auto const u = static_cast<unsigned char>(ch);
    if (ch == '"' || ch == '\\') {
      out << '\\' << ch;
    } else if (u < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", u);
      out << buf;
    } else {
      out << ch;
    }
  }
}

/// Microseconds with three decimals (ns resolution), never in exponent notation.
inline void write_us(std::ostream& out, std::int64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(ns) / 1000.0);
  out << buf;
}

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
[[gnu::cold]] inline std::vector<track> tracks_of(std::vector<trace::event> const& evs) {
  std::vector<track> rows;
  for (auto const& e : evs) {
    track t = track_of(e);
    auto const at = std::lower_bound(rows.begin(), rows.end(), t);
    if (at != rows.end() && !(t < *at)) continue;
    t.label = "core " + std::to_string(e.core) + (e.dma ? " DMA " + e.lane_name : std::string(" compute"));
    rows.insert(at, std::move(t));
  }
  return rows;
}

inline std::size_t index_of(std::vector<track> const& rows, trace::event const& e) {
  return static_cast<std::size_t>(std::lower_bound(rows.begin(), rows.end(), track_of(e)) - rows.begin());
}

/// The earliest time of the trace (its zero).
inline std::int64_t origin_of(std::vector<trace::event> const& evs, std::vector<trace::launch_info> const& launches) {
  bool any = false;
  std::int64_t o = 0;
  auto take = [&](std::int64_t t) {
    o = any ? std::min(o, t) : t;
    any = true;
  };
  for (auto const& e : evs) take(e.begin_ns);
  for (auto const& l : launches) take(l.begin_ns);
  return o;
}

/// Where a launch's core goes in the trace: one process per launch (pid = the launch's
/// number), or for a pl::shard_map one process per chip, with the chip's own core numbers.
class trace_processes {
 public:
  explicit trace_processes(std::vector<trace::launch_info> const& launches) {
    for (auto const& l : launches) of_[l.id] = &l;
  }
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
  trace::launch_info const* info(std::uint64_t launch) const {
    auto const it = of_.find(launch);
    return it == of_.end() ? nullptr : it->second;
  }

 private:
  std::map<std::uint64_t, trace::launch_info const*> of_;
};

/// "#3 ring (pl::shard_map) chip 1 (2 cores)".
inline std::string chip_label(trace::launch_info const& l, int chip) {
  std::string s = "#" + std::to_string(l.id) + " " + l.name;
  if (l.who != l.name) s += " (" + l.who + ")";
  return s + " chip " + std::to_string(chip) + " (" + std::to_string(l.cores_per_chip) +
         (l.cores_per_chip == 1 ? " core)" : " cores)");
}

[[gnu::cold]] inline void write_json(std::ostream& out, std::vector<trace::event> const& evs, std::vector<trace::launch_info> const& launches) {
  std::int64_t const origin = origin_of(evs, launches);
  auto const rows = tracks_of(evs);
  trace_processes const procs(launches);
  // tid 0 of each process is its launch track; a core's tracks follow, numbered in order.
  std::map<std::uint64_t, std::string> processes;
  for (auto const& l : launches)
    if (l.cores_per_chip > 0)
      for (int c = 0; c < l.num_cores; c += l.cores_per_chip)
        processes[trace_processes::chip_pid(l.id, procs.chip(l.id, c))] = chip_label(l, procs.chip(l.id, c));
    else
      processes[l.id] = l.label();
  for (auto const& r : rows)
    if (!processes.count(procs.pid(r.launch, r.core)))
      processes[procs.pid(r.launch, r.core)] = r.launch == 0 ? "outside any launch" : "#" + std::to_string(r.launch);
  out << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  bool first = true;
  auto sep = [&] {
    if (!first) out << ",\n";
    first = false;
  };
  for (auto const& [pid, label] : processes) {
    sep();
    out << R"({"ph":"M","name":"process_name","pid":)" << pid << R"(,"args":{"name":")";
    write_json_escaped(out, label);
    out << "\"}}";
    sep();
    out << R"({"ph":"M","name":"process_sort_index","pid":)" << pid << R"(,"args":{"sort_index":)" << pid << "}}";
    sep();
    out << R"({"ph":"M","name":"thread_name","pid":)" << pid << R"(,"tid":0,"args":{"name":"launch"}})";
  }
  std::map<std::uint64_t, int> next_tid;
  std::vector<int> tid(rows.size());
  for (std::size_t r = 0; r < rows.size(); ++r) {
    std::uint64_t const pid = procs.pid(rows[r].launch, rows[r].core);
    tid[r] = ++next_tid[pid];
    std::string label = rows[r].label;
    if (procs.chip(rows[r].launch, rows[r].core) >= 0)  // the chip's own core number
      label = "core " + std::to_string(procs.core_on_chip(rows[r].launch, rows[r].core)) +
              label.substr(label.find(' ', 5));
    sep();
    out << R"({"ph":"M","name":"thread_name","pid":)" << pid << R"(,"tid":)" << tid[r] << R"(,"args":{"name":")";
    write_json_escaped(out, label);
    out << "\"}}";
    sep();
    out << R"({"ph":"M","name":"thread_sort_index","pid":)" << pid << R"(,"tid":)" << tid[r]
        << R"(,"args":{"sort_index":)" << tid[r] << "}}";
  }
  auto times = [&](std::int64_t begin, std::int64_t end, std::int64_t cpu) {
    out << R"(,"ts":)";
    write_us(out, begin - origin);
    out << R"(,"dur":)";
    write_us(out, end - begin);
    out << R"(,"args":{"wall_us":)";
    write_us(out, end - begin);
    if (cpu >= 0) {
      out << R"(,"cpu_us":)";
      write_us(out, cpu);
    }
  };
  for (auto const& l : launches) {
    int const step = l.cores_per_chip > 0 ? l.cores_per_chip : l.num_cores;
    for (int c = 0; c < l.num_cores; c += step) {  // once per chip
      sep();
      out << R"({"ph":"X","pid":)" << procs.pid(l.id, c) << R"(,"tid":0,"cat":"launch","name":")";
      write_json_escaped(out, l.label());
      out << '"';
      times(l.begin_ns, l.end_ns, l.cpu_ns);
      out << R"(,"launch":)" << l.id << R"(,"cores":)" << l.num_cores;
      if (int const chip = procs.chip(l.id, c); chip >= 0) out << R"(,"chip":)" << chip;
      out << "}}";
    }
  }
  for (auto const& e : evs) {
    sep();
    out << R"({"ph":"X","pid":)" << procs.pid(e.launch, e.core) << R"(,"tid":)" << tid[index_of(rows, e)]
        << R"(,"cat":")";
    write_json_escaped(out, e.category.empty() ? (e.dma ? "dma" : "compute") : e.category);
    out << R"(","name":")";
    write_json_escaped(out, e.name);
    out << '"';
    times(e.begin_ns, e.end_ns, e.cpu_ns);
    out << R"(,"launch":)" << e.launch << R"(,"core":)" << procs.core_on_chip(e.launch, e.core);
    if (int const chip = procs.chip(e.launch, e.core); chip >= 0) out << R"(,"chip":)" << chip;
    if (e.bytes >= 0) out << R"(,"bytes":)" << e.bytes;
    if (!e.operand.empty()) {
      out << R"(,"operand":")";
      write_json_escaped(out, e.operand);
      out << '"';
    }
    if (!e.point.empty()) {
      out << R"(,"point":")";
      write_json_escaped(out, e.point);
      out << '"';
    }
    out << "}}";
  }
  out << "\n]}\n";
}

}  // namespace pallas::detail
