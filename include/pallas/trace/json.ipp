// SPDX-License-Identifier: Apache-2.0
#pragma once
// The trace's JSON writer, compiled once per program under separate compilation
// (config.hpp) and inline in every translation unit otherwise.

#include <pallas/trace/json.hpp>

#include <algorithm>
#include <cstdio>
#include <ostream>

namespace pallas::detail {

PALLAS_DECL void write_json_escaped(std::ostream& out, std::string_view s) {
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

PALLAS_DECL void write_us(std::ostream& out, std::int64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(ns) / 1000.0);
  out << buf;
}

PALLAS_DECL std::vector<track> tracks_of(std::vector<trace::event> const& evs) {
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

PALLAS_DECL std::size_t index_of(std::vector<track> const& rows, trace::event const& e) {
  return static_cast<std::size_t>(std::lower_bound(rows.begin(), rows.end(), track_of(e)) - rows.begin());
}

PALLAS_DECL std::int64_t origin_of(std::vector<trace::event> const& evs, std::vector<trace::launch_info> const& launches) {
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

PALLAS_DECL trace_processes::trace_processes(std::vector<trace::launch_info> const& launches) {
  for (auto const& l : launches) of_[l.id] = &l;
}

PALLAS_DECL trace::launch_info const* trace_processes::info(std::uint64_t launch) const {
  auto const it = of_.find(launch);
  return it == of_.end() ? nullptr : it->second;
}

PALLAS_DECL std::string chip_label(trace::launch_info const& l, int chip) {
  std::string s = "#" + std::to_string(l.id) + " " + l.name;
  if (l.who != l.name) s += " (" + l.who + ")";
  return s + " chip " + std::to_string(chip) + " (" + std::to_string(l.cores_per_chip) +
         (l.cores_per_chip == 1 ? " core)" : " cores)");
}

PALLAS_DECL void write_json(std::ostream& out, std::vector<trace::event> const& evs, std::vector<trace::launch_info> const& launches) {
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
      out << R"(,"launch":)" << l.id << R"(,"cores":)" << l.num_cores << R"(,"dma_executor":")"
          << (l.dma_thread ? "dma_thread" : "on_core") << '"';
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
