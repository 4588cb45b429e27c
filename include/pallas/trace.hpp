// SPDX-License-Identifier: Apache-2.0
#pragma once
// The timeline. With PALLAS_TRACE=run.json in the environment a program records, per launch
// and per core, one span per grid step (compute), one per pipeline copy, per copy started by
// hand (make_async_copy/async_copy from start to the end of its wait, sync_copy) and per
// semaphore wait, each with its wall and CPU time, and writes them at exit in the Chrome
// trace event format (open it in Perfetto or chrome://tracing; one process per launch). With
// PALLAS_TRACE=run.svg it draws the last launch as a self-contained SVG picture
// (PALLAS_TRACE_LAUNCH=n draws launch n, =all a row per launch). An unwritable path or an
// empty trace is reported on stderr at exit. Programs can also drive it: pl::trace::start(),
// pl::trace::write_json(path), pl::trace::write_svg(path, launch); pl::trace::enabled() says
// whether it records (recorder.hpp).

#include <cstdint>
#include <string>
#include <vector>

#include <pallas/trace/event.hpp>
#include <pallas/trace/json.hpp>
#include <pallas/trace/recorder.hpp>
#include <pallas/trace/svg.hpp>

namespace pallas::trace {

/// Starts recording (also on when PALLAS_TRACE is set).
inline void start() { detail::recorder::instance().enable(true); }
/// Stops recording; what was recorded stays.
inline void stop() { detail::recorder::instance().enable(false); }
/// Forgets what was recorded (spans and launches).
inline void clear() { detail::recorder::instance().clear(); }
/// The spans recorded so far.
inline std::vector<event> events() { return detail::recorder::instance().events(); }
/// The launches recorded so far, in the order they ended.
inline std::vector<launch_info> launches() { return detail::recorder::instance().launches(); }
/// Writes the Chrome trace event JSON (Perfetto, chrome://tracing); false (with a warning on
/// stderr) when the file cannot be written.
inline bool write_json(std::string const& path) {
  return detail::recorder::instance().write_file(path, false, last_launch);
}
/// Writes the timeline of one launch (`launch`: its number, or last_launch) or of every
/// launch (all_launches) as a self-contained SVG picture; false (with a warning on stderr)
/// when the file cannot be written or the launch was not recorded.
inline bool write_svg(std::string const& path, std::uint64_t launch = last_launch) {
  return detail::recorder::instance().write_file(path, true, launch);
}

}  // namespace pallas::trace
