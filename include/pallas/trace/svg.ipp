// SPDX-License-Identifier: Apache-2.0
#pragma once
// The trace's SVG picture, compiled once per program under separate compilation
// (config.hpp) and inline in every translation unit otherwise.

#include <pallas/trace/svg.hpp>

#include <algorithm>
#include <ostream>

#include <pallas/trace/json.hpp>

namespace pallas::detail {

PALLAS_DECL void write_xml_escaped(std::ostream& out, std::string_view s) {
  for (char ch : s) {
    if (ch == '<') out << "&lt;";
    else if (ch == '>') out << "&gt;";
    else if (ch == '&') out << "&amp;";
    else if (ch == '"') out << "&quot;";
    else out << ch;
  }
}

PALLAS_DECL std::uint64_t chosen_launch(std::vector<trace::event> const& evs, std::vector<trace::launch_info> const& launches,
                                   std::uint64_t which) {
  std::uint64_t last = 0;
  bool found = false;
  for (auto const& l : launches) last = std::max(last, l.id), found |= l.id == which;
  for (auto const& e : evs) last = std::max(last, e.launch), found |= e.launch == which;
  if (which == trace::last_launch) return last;
  return found ? which : 0;
}

PALLAS_DECL std::string tooltip_of(trace::event const& e) {
  std::string s = e.name + "\nwall " + std::to_string((e.end_ns - e.begin_ns) / 1000) + " us";
  if (e.cpu_ns >= 0) s += ", CPU " + std::to_string(e.cpu_ns / 1000) + " us";
  if (e.bytes >= 0) s += "\n" + std::to_string(e.bytes) + " bytes";
  if (!e.operand.empty()) s += "\n" + e.operand;
  if (!e.point.empty()) s += "\ngrid point " + e.point;
  return s;
}

PALLAS_DECL double svg_frame::x_of(std::int64_t t) const {
  double const span = static_cast<double>(std::max<std::int64_t>(end - origin, 1));
  return label_w + (static_cast<double>(t - origin) / span) * (width - label_w - 10);
}

PALLAS_DECL char const* color_of(trace::event const& e) {
  if (!e.dma) return "#4e79a7";
  if (e.category == "semaphore_wait") return "#76b7b2";
  if (e.category == "async_copy" || e.category == "sync_copy") return "#e15759";
  return "#f28e2b";
}

PALLAS_DECL void write_span(std::ostream& out, svg_frame const& f, trace::event const& e, double y, double h) {
  double const x0 = f.x_of(e.begin_ns), x1 = std::max(f.x_of(e.end_ns), x0 + 0.5);
  std::int64_t const wall = std::max<std::int64_t>(e.end_ns - e.begin_ns, 1);
  out << R"(<g><title>)";
  write_xml_escaped(out, tooltip_of(e));
  out << R"(</title><rect x=")" << x0 << R"(" y=")" << y << R"(" width=")" << x1 - x0 << R"(" height=")" << h
      << R"(" fill=")" << color_of(e) << R"(" stroke="white" stroke-width="0.3"/>)";
  if (e.cpu_ns >= 0) {
    double const share = std::min(1.0, static_cast<double>(e.cpu_ns) / static_cast<double>(wall));
    if (!e.dma && share < 0.5)
      out << R"(<rect x=")" << x0 << R"(" y=")" << y << R"(" width=")" << x1 - x0 << R"(" height=")" << h
          << "\" fill=\"url(#off_cpu)\"/>";
    out << R"(<rect x=")" << x0 << R"(" y=")" << y + h - 3 << R"(" width=")" << (x1 - x0) * share
        << R"(" height="3" fill="#222"/>)";
  }
  out << "</g>\n";
}

PALLAS_DECL void write_axis(std::ostream& out, svg_frame const& f, double y) {
  for (int k = 0; k <= 4; ++k) {
    std::int64_t const t = f.origin + (f.end - f.origin) * k / 4;
    out << R"(<text x=")" << f.x_of(t) - (k == 4 ? 50 : 0) << R"(" y=")" << y << R"(" fill="#555">)"
        << static_cast<double>(t - f.origin) / 1e3 << " us</text>\n";
  }
}

PALLAS_DECL bool write_svg(std::ostream& out, std::vector<trace::event> const& all, std::vector<trace::launch_info> const& launches,
                      std::uint64_t which) {
  bool const every = which == trace::all_launches;
  std::uint64_t const chosen = every ? 0 : chosen_launch(all, launches, which);
  bool const missing = !every && which != trace::last_launch && chosen == 0;
  std::vector<trace::event> evs;
  for (auto const& e : all)
    if (every || e.launch == chosen) evs.push_back(e);
  std::vector<trace::launch_info> shown;
  for (auto const& l : launches)
    if (every || l.id == chosen) shown.push_back(l);
  svg_frame f;
  f.origin = origin_of(evs, shown);
  f.end = f.origin + 1;
  for (auto const& e : evs) f.end = std::max(f.end, e.end_ns);
  for (auto const& l : shown) f.end = std::max(f.end, l.end_ns);
  double const row_h = 18, gap = 4, top = 66;
  auto const rows = tracks_of(evs);
  std::size_t const num_rows = every ? shown.size() : rows.size();
  double const height = top + static_cast<double>(num_rows) * (row_h + gap) + 40;
  out << R"(<svg xmlns="http://www.w3.org/2000/svg" width=")" << f.width << R"(" height=")" << height
      << R"(" font-family="sans-serif" font-size="12">)" << '\n';
  out << R"svg(<defs><pattern id="off_cpu" width="6" height="6" patternUnits="userSpaceOnUse" )svg"
      << R"svg(patternTransform="rotate(45)">)svg"
      << R"(<rect width="3" height="6" fill="white" fill-opacity="0.6"/></pattern></defs>)" << '\n';
  out << R"(<rect width="100%" height="100%" fill="white"/>)" << '\n';
  out << R"(<text x="10" y="20" font-size="14">)";
  if (missing) {
    out << "pallas-cpp timeline: launch #" << which << " was not recorded";
  } else if (every) {
    out << "pallas-cpp timeline: " << shown.size() << " launches, " << evs.size() << " spans over "
        << static_cast<double>(f.end - f.origin) / 1e3 << " us";
  } else {
    std::string label = "#" + std::to_string(chosen);
    for (auto const& l : shown) label = l.label();
    out << "pallas-cpp timeline of launch ";
    write_xml_escaped(out, label);
    out << ": " << evs.size() << " spans over " << static_cast<double>(f.end - f.origin) / 1e3 << " us";
  }
  out << "</text>\n";
  out << R"(<text x="10" y="38" fill="#444">blue: grid steps; orange: pipeline copies and the DMA thread's moves )"
      << R"((a copy from its start to the end of its wait); red: copies started by hand; teal: semaphore waits</text>)"
      << '\n'
      << R"(<text x="10" y="54" fill="#444">dark strip under a span: the thread's CPU time as a share of its wall )"
      << R"(time; hatched: a step off the CPU (descheduled or asleep) for over half of it</text>)" << '\n';
  auto row_y = [&](std::size_t r) { return top + static_cast<double>(r) * (row_h + gap); };
  if (every) {
    for (std::size_t r = 0; r < shown.size(); ++r) {
      double const y = row_y(r);
      out << R"(<text x="10" y=")" << y + row_h * 0.72 << R"(">)";
      write_xml_escaped(out, shown[r].label());
      out << "</text>\n";
      double const x0 = f.x_of(shown[r].begin_ns), x1 = std::max(f.x_of(shown[r].end_ns), x0 + 0.5);
      out << R"(<rect x=")" << x0 << R"(" y=")" << y << R"(" width=")" << x1 - x0 << R"(" height=")" << row_h
          << R"(" fill="#e4e4e4"/>)" << '\n';
      for (auto const& e : evs)
        if (e.launch == shown[r].id) write_span(out, f, e, e.dma ? y + row_h / 2 : y, row_h / 2);
    }
  } else {
    for (std::size_t r = 0; r < rows.size(); ++r) {
      double const y = row_y(r);
      out << R"(<text x="10" y=")" << y + row_h * 0.72 << R"(">)";
      write_xml_escaped(out, rows[r].label);
      out << "</text>\n";
      out << R"(<rect x=")" << f.label_w << R"(" y=")" << y << R"(" width=")" << f.width - f.label_w - 10
          << R"(" height=")" << row_h << R"(" fill="#f3f3f3"/>)" << '\n';
    }
    for (auto const& e : evs) write_span(out, f, e, row_y(index_of(rows, e)) + 2, row_h - 4);
  }
  write_axis(out, f, row_y(num_rows) + 14);
  out << "</svg>\n";
  return !missing;
}

}  // namespace pallas::detail
