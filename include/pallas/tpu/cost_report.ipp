// SPDX-License-Identifier: Apache-2.0
#pragma once
// The cost report's assembly and printing, compiled once per program under separate
// compilation (config.hpp) and inline in every translation unit otherwise.

#include <pallas/tpu/cost_report.hpp>

#include <algorithm>
#include <cstdio>
#include <ostream>
#include <sstream>
#include <utility>

#include <pallas/trace/recorder.hpp>

namespace pallas::detail {

PALLAS_DECL raw_report_owner::~raw_report_owner() {
  delete raw_report_slot();
  raw_report_slot() = nullptr;
}

PALLAS_DECL raw_report& last_raw_report() {
  raw_report*& report = raw_report_slot();
  if (!report) {
    report = new raw_report;
    thread_local raw_report_owner owner;  // constructed once per thread, at the first report
  }
  return *report;
}

PALLAS_DECL std::string seconds_string(double s) {
  char buf[48];
  if (s < 1e-6)
    std::snprintf(buf, sizeof buf, "%.3g ns", s * 1e9);
  else if (s < 1e-3)
    std::snprintf(buf, sizeof buf, "%.3g us", s * 1e6);
  else if (s < 1)
    std::snprintf(buf, sizeof buf, "%.3g ms", s * 1e3);
  else
    std::snprintf(buf, sizeof buf, "%.3g s", s);
  return buf;
}

}  // namespace pallas::detail

namespace pallas::tpu {

PALLAS_DECL OperandTraffic const* LaunchReport::operand(std::string_view row_name) const {
  for (auto const& o : operands)
    if (o.name == row_name) return &o;
  return nullptr;
}

PALLAS_DECL LaunchReport last_launch_report() {
  namespace pd = pallas::detail;
  pd::raw_report const& raw = pd::last_raw_report();
  LaunchReport r;
  r.valid = raw.valid;
  r.launcher = raw.launcher;
  r.num_cores = raw.num_cores;
  r.chip = raw.chip;
  r.dots = raw.dots;
  r.estimate = raw.estimate;
  // Pipelines are numbered in the report only when the launch ran more than one.
  std::vector<void const*> pipelines;
  for (auto const& row : raw.rows)
    if (row.key.kind == pd::traffic_kind::pipeline &&
        std::find(pipelines.begin(), pipelines.end(), row.key.pipeline) == pipelines.end())
      pipelines.push_back(row.key.pipeline);
  for (auto const& row : raw.rows) {
    OperandTraffic o;
    auto const& k = row.key;
    switch (k.kind) {
      case pd::traffic_kind::pipeline: {
        if (pipelines.size() > 1) {
          auto const n = std::find(pipelines.begin(), pipelines.end(), k.pipeline) - pipelines.begin();
          o.name = "pipeline " + std::to_string(n + 1) + " ";
        }
        o.name += std::string(k.output ? "out_specs[" : "in_specs[") + std::to_string(k.position) + "]";
        break;
      }
      case pd::traffic_kind::scalar_prefetch: o.name = "scalar_prefetch"; break;
      case pd::traffic_kind::sync_copy: o.name = "sync_copy"; break;
      case pd::traffic_kind::async_copy: o.name = "make_async_copy"; break;
      case pd::traffic_kind::other: o.name = "other copies"; break;
    }
    o.src = k.src;
    o.dst = k.dst;
    o.copies = row.copies;
    o.bytes = row.bytes;
    o.hbm_bytes = pallas::detail::hbm_traffic(k.src, k.dst, row.bytes);
    r.hbm_bytes += o.hbm_bytes;
    r.operands.push_back(std::move(o));
  }
  double const bw = r.chip.mem_bw_bytes_per_second, rate = r.chip.bf16_ops_per_second;
  r.f32_ops_per_second = rate / f32_mxu_passes;
  for (std::size_t c = 0; c < raw.core_hbm.size(); ++c) {
    r.flops += raw.core_narrow[c] + raw.core_wide[c];
    r.f32_flops += raw.core_wide[c];
    double const memory = bw > 0 ? static_cast<double>(raw.core_hbm[c]) / bw : 0;
    double const compute = rate > 0 ? static_cast<double>(raw.core_narrow[c]) / rate +
                                          static_cast<double>(raw.core_wide[c]) / r.f32_ops_per_second
                                    : 0;
    double const t = std::max(memory, compute);
    if (c == 0 || t > r.estimated_seconds) {
      r.estimated_seconds = t;
      r.memory_seconds = memory;
      r.compute_seconds = compute;
      r.slowest_core = static_cast<int>(c);
    }
  }
  r.bound = r.estimated_seconds <= 0 ? Bound::none : r.memory_seconds >= r.compute_seconds ? Bound::hbm : Bound::mxu;
  r.arithmetic_intensity = r.hbm_bytes > 0 ? static_cast<double>(r.flops) / static_cast<double>(r.hbm_bytes) : 0;
  return r;
}

PALLAS_DECL std::ostream& operator<<(std::ostream& out, LaunchReport const& r) {
  if (!r.valid) return out << "no launch yet on this thread\n";
  char line[160];
  out << r.launcher << " on " << r.num_cores << (r.num_cores == 1 ? " core" : " cores") << " of " << r.chip.device_kind
      << '\n';
  std::snprintf(line, sizeof line, "  %-28s %-12s %8s %14s %14s\n", "operand", "direction", "copies", "bytes", "HBM bytes");
  out << line;
  for (auto const& o : r.operands) {
    std::string const dir = std::string(name(o.src)) + "->" + std::string(name(o.dst));
    std::snprintf(line, sizeof line, "  %-28s %-12s %8lld %14lld %14lld\n", o.name.c_str(), dir.c_str(),
                  static_cast<long long>(o.copies), static_cast<long long>(o.bytes), static_cast<long long>(o.hbm_bytes));
    out << line;
  }
  out << "  HBM traffic " << r.hbm_bytes << " bytes; " << r.dots << (r.dots == 1 ? " product, " : " products, ") << r.flops
      << " FLOPs (" << r.f32_flops << " with f32 operands, at bf16 rate / " << f32_mxu_passes << ")\n";
  std::snprintf(line, sizeof line, "%.3g", r.arithmetic_intensity);
  out << "  estimated on " << r.chip.device_kind << ": " << pallas::detail::seconds_string(r.estimated_seconds) << ", "
      << name(r.bound) << " (HBM " << pallas::detail::seconds_string(r.memory_seconds) << ", MXU "
      << pallas::detail::seconds_string(r.compute_seconds);
  if (r.num_cores > 1) out << ", on core " << r.slowest_core << ", the slowest";
  out << "), arithmetic intensity " << line << " FLOPs/byte\n";
  if (r.estimate) {
    auto ratio = [](std::optional<double> v) {
      char b[32];
      if (!v) return std::string("-");
      std::snprintf(b, sizeof b, "%.3g", *v);
      return std::string(b);
    };
    out << "  CostEstimate: flops " << r.estimate->flops << " (measured/estimated " << ratio(r.flops_ratio())
        << "), bytes_accessed " << r.estimate->bytes_accessed << " (measured/estimated " << ratio(r.bytes_ratio())
        << "), transcendentals " << r.estimate->transcendentals << " (not measured)\n";
  }
  return out;
}

PALLAS_DECL std::string to_string(LaunchReport const& r) {
  std::ostringstream s;
  s << r;
  return s.str();
}

}  // namespace pallas::tpu

namespace pallas::detail {

// The report in the trace as well: a zero-length "cost" span on core 0 of its launch,
// the HBM bytes in `bytes` and the whole printed report in `operand`.
[[gnu::cold]] PALLAS_DECL void trace_launch_report() {
  tpu::LaunchReport const report = tpu::last_launch_report();
  trace::event e;
  e.name = "cost report";
  e.category = "cost";
  e.launch = launch_of_this_thread();
  e.begin_ns = e.end_ns = now_ns();
  e.cpu_ns = 0;
  e.bytes = report.hbm_bytes;
  e.operand = tpu::to_string(report);
  recorder::instance().record(std::move(e));
}

PALLAS_DECL void publish_launch_costs(core_costs const* cores, int num_cores, char const* launcher,
                                      tpu::TpuInfo const& chip, std::optional<CostEstimate> const& estimate) {
  raw_report& r = last_raw_report();
  r.valid = true;
  r.launcher = launcher;
  r.num_cores = num_cores;
  r.chip = chip;
  r.estimate = estimate;
  r.rows.clear();
  r.core_hbm.assign(static_cast<std::size_t>(num_cores), 0);
  r.core_narrow.assign(static_cast<std::size_t>(num_cores), 0);
  r.core_wide.assign(static_cast<std::size_t>(num_cores), 0);
  r.dots = 0;
  for (int c = 0; c < num_cores; ++c) {
    core_costs const& cc = cores[c];
    r.core_narrow[static_cast<std::size_t>(c)] = cc.narrow_flops;
    r.core_wide[static_cast<std::size_t>(c)] = cc.wide_flops;
    r.dots += cc.dots;
    for (int k = 0; k < cc.used; ++k) {
      traffic_row const& row = cc.rows[k];
      r.core_hbm[static_cast<std::size_t>(c)] += hbm_traffic(row.key.src, row.key.dst, row.bytes);
      auto same = [&](traffic_row const& m) { return m.key == row.key; };
      if (auto it = std::find_if(r.rows.begin(), r.rows.end(), same); it != r.rows.end()) {
        it->bytes += row.bytes;
        it->copies += row.copies;
      } else {
        r.rows.push_back(row);
      }
    }
  }
  if (trace::enabled()) trace_launch_report();
}

}  // namespace pallas::detail
