#pragma once
// The pipeline timeline. With PALLAS_TRACE=run.json in the environment a program records,
// per core, one span per grid step (compute) and one per copy (DMA), and writes them at exit
// in the Chrome trace event format (open it in Perfetto or chrome://tracing). With
// PALLAS_TRACE=run.svg it writes the same timeline as a self-contained SVG picture. Programs
// can also drive it: pl::trace::start(), pl::trace::write_json(path), pl::trace::write_svg(path).

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace pallas::trace {

/// One span of a core's timeline.
struct event {
  std::string name;
  int core = 0;
  bool dma = false;  ///< on one of the core's DMA tracks, else its compute track
  int lane = 0;           ///< which DMA track of the core (one per operand)
  std::string lane_name;  ///< the DMA track's label, e.g. "in_specs[0]"
  std::int64_t begin_ns = 0;
  std::int64_t end_ns = 0;
};

namespace detail {

inline std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

inline void write_json_escaped(std::ostream& out, std::string_view s) {
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out << '\\';
    out << ch;
  }
}

inline bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

class recorder {
 public:
  static recorder& instance() {
    static recorder r;
    return r;
  }

  recorder() {
    if (char const* path = std::getenv("PALLAS_TRACE"); path && *path) {
      at_exit_path_ = path;
      enabled_ = true;
    }
  }
  ~recorder() {
    if (at_exit_path_.empty()) return;
    if (ends_with(at_exit_path_, ".svg"))
      write_svg(at_exit_path_);
    else
      write_json(at_exit_path_);
  }
  recorder(recorder const&) = delete;
  recorder& operator=(recorder const&) = delete;

  bool enabled() const noexcept { return enabled_; }
  void enable(bool on) {
    std::lock_guard lock(mutex_);
    enabled_ = on;
  }
  void clear() {
    std::lock_guard lock(mutex_);
    events_.clear();
  }

  void record(event e) {
    std::lock_guard lock(mutex_);
    if (origin_ns_ == 0 || e.begin_ns < origin_ns_) origin_ns_ = e.begin_ns;
    events_.push_back(std::move(e));
  }

  std::vector<event> events() const {
    std::lock_guard lock(mutex_);
    return events_;
  }

  void write_json(std::string const& path) const {
    std::ofstream out(path);
    write_json(out);
  }

  void write_json(std::ostream& out) const {
    auto const evs = events();
    std::int64_t const origin = origin_of(evs);
    auto const rows = rows_of(evs);
    out << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
    bool first = true;
    auto sep = [&] {
      if (!first) out << ",\n";
      first = false;
    };
    for (std::size_t r = 0; r < rows.size(); ++r) {
      sep();
      out << R"({"ph":"M","name":"thread_name","pid":0,"tid":)" << r << R"(,"args":{"name":")";
      write_json_escaped(out, rows[r].label);
      out << "\"}}";
      sep();
      out << R"({"ph":"M","name":"thread_sort_index","pid":0,"tid":)" << r << R"(,"args":{"sort_index":)" << r << "}}";
    }
    for (auto const& e : evs) {
      sep();
      out << R"({"ph":"X","pid":0,"tid":)" << row_of(rows, e) << R"(,"cat":")"
          << (e.dma ? "dma" : "compute") << R"(","name":")";
      write_json_escaped(out, e.name);
      out << R"(","ts":)" << static_cast<double>(e.begin_ns - origin) / 1000.0
          << R"(,"dur":)" << static_cast<double>(e.end_ns - e.begin_ns) / 1000.0 << '}';
    }
    out << "\n]}\n";
  }

  void write_svg(std::string const& path) const {
    std::ofstream out(path);
    write_svg(out);
  }

  /// The timeline as an SVG: one row per core's compute and DMA tracks.
  void write_svg(std::ostream& out) const {
    auto const evs = events();
    std::int64_t const origin = origin_of(evs);
    std::int64_t end = origin + 1;
    for (auto const& e : evs) end = std::max(end, e.end_ns);
    auto const rows = rows_of(evs);
    double const label_w = 210, width = 1100, row_h = 18, gap = 4, top = 40;
    double const span = static_cast<double>(end - origin);
    double const height = top + static_cast<double>(rows.size()) * (row_h + gap) + 40;
    auto x_of = [&](std::int64_t t) { return label_w + (static_cast<double>(t - origin) / span) * (width - label_w - 10); };
    out << R"(<svg xmlns="http://www.w3.org/2000/svg" width=")" << width << R"(" height=")" << height
        << R"(" font-family="sans-serif" font-size="12">)" << '\n';
    out << R"(<rect width="100%" height="100%" fill="white"/>)" << '\n';
    out << R"(<text x="10" y="20" font-size="14">pallas-cpp pipeline timeline: )" << evs.size() << " spans over "
        << span / 1e3 << R"( us (blue: grid steps, orange: DMAs)</text>)" << '\n';
    for (std::size_t r = 0; r < rows.size(); ++r) {
      double const y = top + static_cast<double>(r) * (row_h + gap);
      out << R"(<text x="10" y=")" << y + row_h * 0.72 << R"(">)" << rows[r].label << "</text>\n";
      out << R"(<rect x=")" << label_w << R"(" y=")" << y << R"(" width=")" << width - label_w - 10
          << R"(" height=")" << row_h << R"(" fill="#f3f3f3"/>)" << '\n';
    }
    for (auto const& e : evs) {
      double const y = top + static_cast<double>(row_of(rows, e)) * (row_h + gap);
      double const x0 = x_of(e.begin_ns), x1 = std::max(x_of(e.end_ns), x0 + 0.5);
      out << R"(<rect x=")" << x0 << R"(" y=")" << y + 2 << R"(" width=")" << x1 - x0 << R"(" height=")"
          << row_h - 4 << R"(" fill=")" << (e.dma ? "#f28e2b" : "#4e79a7") << R"(" stroke="white" stroke-width="0.3"><title>)";
      for (char ch : e.name) {
        if (ch == '<') out << "&lt;";
        else if (ch == '>') out << "&gt;";
        else if (ch == '&') out << "&amp;";
        else out << ch;
      }
      out << "</title></rect>\n";
    }
    double const axis_y = top + static_cast<double>(rows.size()) * (row_h + gap) + 14;
    for (int k = 0; k <= 4; ++k) {
      std::int64_t const t = origin + static_cast<std::int64_t>(span * k / 4);
      out << R"(<text x=")" << x_of(t) - (k == 4 ? 40 : 0) << R"(" y=")" << axis_y << R"(" fill="#555">)"
          << static_cast<double>(t - origin) / 1e3 << " us</text>\n";
    }
    out << "</svg>\n";
  }

 private:
  struct row {
    int core;
    bool dma;
    int lane;
    std::string label;
    bool operator<(row const& o) const {
      return std::tie(core, dma, lane) < std::tie(o.core, o.dma, o.lane);
    }
  };

  // One row per core's compute track and per DMA lane that has events, in core order.
  static std::vector<row> rows_of(std::vector<event> const& evs) {
    std::vector<row> rows;
    for (auto const& e : evs) {
      row r{e.core, e.dma, e.dma ? e.lane : 0, {}};
      if (std::find_if(rows.begin(), rows.end(), [&](row const& x) { return !(x < r) && !(r < x); }) != rows.end())
        continue;
      r.label = "core " + std::to_string(e.core) + (e.dma ? " DMA " + e.lane_name : std::string(" compute"));
      rows.push_back(std::move(r));
    }
    std::sort(rows.begin(), rows.end());
    return rows;
  }

  static std::size_t row_of(std::vector<row> const& rows, event const& e) {
    row const key{e.core, e.dma, e.dma ? e.lane : 0, {}};
    return static_cast<std::size_t>(std::lower_bound(rows.begin(), rows.end(), key) - rows.begin());
  }

  static std::int64_t origin_of(std::vector<event> const& evs) {
    std::int64_t o = evs.empty() ? 0 : evs.front().begin_ns;
    for (auto const& e : evs) o = std::min(o, e.begin_ns);
    return o;
  }

  mutable std::mutex mutex_;
  std::vector<event> events_;
  std::int64_t origin_ns_ = 0;
  std::string at_exit_path_;
  bool enabled_ = false;
};

/// Records a span from construction to destruction when tracing is on.
class span {
 public:
  template <class NameFn>
  span(int core, bool dma, NameFn&& name) {
    if (recorder::instance().enabled()) {
      active_ = true;
      event_.core = core;
      event_.dma = dma;
      event_.name = name();
      event_.begin_ns = now_ns();
    }
  }
  ~span() {
    if (active_) {
      event_.end_ns = now_ns();
      recorder::instance().record(std::move(event_));
    }
  }
  span(span const&) = delete;
  span& operator=(span const&) = delete;

 private:
  bool active_ = false;
  event event_;
};

}  // namespace detail

/// Starts recording (also on when PALLAS_TRACE is set).
inline void start() { detail::recorder::instance().enable(true); }
/// Stops recording; what was recorded stays.
inline void stop() { detail::recorder::instance().enable(false); }
/// Forgets what was recorded.
inline void clear() { detail::recorder::instance().clear(); }
/// Whether spans are being recorded.
inline bool enabled() { return detail::recorder::instance().enabled(); }
/// What was recorded so far.
inline std::vector<event> events() { return detail::recorder::instance().events(); }
/// Writes the Chrome trace event JSON (Perfetto, chrome://tracing).
inline void write_json(std::string const& path) { detail::recorder::instance().write_json(path); }
/// Writes the timeline as a self-contained SVG picture.
inline void write_svg(std::string const& path) { detail::recorder::instance().write_svg(path); }

}  // namespace pallas::trace
