// SPDX-License-Identifier: Apache-2.0
#pragma once
// The trace as a self-contained SVG picture. It draws one launch (the last by default, or one
// chosen by its number) with a row per track of each core, or every launch with a row each.
// Under each span a dark strip shows the recording thread's CPU time as a share of the span's
// wall time; a grid step whose thread was off the CPU for more than half of it (descheduled,
// or asleep) is hatched.

#include <cstdint>
#include <iosfwd>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include <pallas/config.hpp>
#include <pallas/trace/event.hpp>

namespace pallas::trace {

/// write_svg(path, last_launch): the launch with the highest number (the default).
inline constexpr std::uint64_t last_launch = 0;
/// write_svg(path, all_launches): every launch, one row each.
inline constexpr std::uint64_t all_launches = std::numeric_limits<std::uint64_t>::max();

}  // namespace pallas::trace

namespace pallas::detail {

void write_xml_escaped(std::ostream& out, std::string_view s);

/// The launch `which` names among those recorded: itself, or the highest number for
/// trace::last_launch; 0 when there is none.
std::uint64_t chosen_launch(std::vector<trace::event> const& evs, std::vector<trace::launch_info> const& launches,
                            std::uint64_t which);

/// A span's tooltip: its name, times, bytes, operand and grid point.
[[gnu::cold]] std::string tooltip_of(trace::event const& e);

struct svg_frame {
  std::int64_t origin = 0, end = 1;
  double label_w = 250, width = 1150;
  double x_of(std::int64_t t) const;
};

char const* color_of(trace::event const& e);

/// One span in a row at height y of height h.
[[gnu::cold]] void write_span(std::ostream& out, svg_frame const& f, trace::event const& e, double y, double h);

void write_axis(std::ostream& out, svg_frame const& f, double y);

/// Writes the picture; returns false when `which` names a launch that was not recorded
/// (the picture then says so).
[[gnu::cold]] bool write_svg(std::ostream& out, std::vector<trace::event> const& all, std::vector<trace::launch_info> const& launches,
                            std::uint64_t which);

}  // namespace pallas::detail

#if PALLAS_DEFINE_RUNTIME
#  include <pallas/trace/svg.ipp>
#endif
