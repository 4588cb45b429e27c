// SPDX-License-Identifier: Apache-2.0
#pragma once
// The process-wide trace recorder: spans and launches recorded while tracing is on
// (pl::trace::start(), or PALLAS_TRACE=file in the environment, written at exit), and the
// RAII helpers the library records them with. Nothing here reads a clock while tracing is off.

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <mutex>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <pallas/detail/runtime/fork_guard.hpp>
#include <pallas/trace/event.hpp>
#include <pallas/trace/json.hpp>
#include <pallas/trace/svg.hpp>

namespace pallas::detail {

inline bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

/// Where the trace's warnings go (an unwritable path, an empty trace): stderr, unless a
/// test puts its own sink here.
inline std::function<void(std::string const&)>& warning_sink() {
  // Never destroyed: the atexit handler that writes the trace may run after static destructors.
  static auto* const sink =
      new std::function<void(std::string const&)>([](std::string const& m) { std::cerr << m << '\n'; });
  return *sink;
}
inline void warn(std::string const& message) {
  if (auto const& sink = warning_sink()) sink(message);
}

/// PALLAS_TRACE_LAUNCH: "last" (or unset), "all", or a launch's number.
inline std::uint64_t launch_choice_from_env() {
  char const* v = std::getenv("PALLAS_TRACE_LAUNCH");
  if (!v || !*v || std::string_view(v) == "last") return trace::last_launch;
  if (std::string_view(v) == "all") return trace::all_launches;
  char* end = nullptr;
  unsigned long long const n = std::strtoull(v, &end, 10);
  if (end && *end == '\0' && n > 0) return static_cast<std::uint64_t>(n);
  warn(std::string("pallas::trace: PALLAS_TRACE_LAUNCH=") + v +
       " is not a launch number, \"last\" or \"all\"; drawing the last launch");
  return trace::last_launch;
}

/// PALLAS_TRACE's path for this process: under an MPI job of several ranks (as mpirun's
/// environment says) rank r writes `run.rank<r>.json` for `run.json`, so that the ranks do
/// not overwrite one another's trace.
inline std::string trace_path_for_this_process(std::string path) {
  for (auto [rank_var, size_var] :  // Open MPI's, then MPICH's (Hydra) launcher
       {std::pair{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"}, std::pair{"PMI_RANK", "PMI_SIZE"}}) {
    char const* rank = std::getenv(rank_var);
    char const* size = std::getenv(size_var);
    if (!rank || !*rank || !size || std::atoi(size) <= 1) continue;
    std::size_t const slash = path.find_last_of('/');
    std::size_t const dot = path.find_last_of('.');
    std::size_t const at = dot != std::string::npos && (slash == std::string::npos || dot > slash) ? dot : path.size();
    return path.insert(at, std::string(".rank") + rank);
  }
  return path;
}

class recorder {
 public:
  /// Never destroyed: kernels launched from atexit handlers and static destructors record
  /// into it. With PALLAS_TRACE set, the trace is written by an atexit handler registered
  /// when the recorder is created (where its destructor used to run).
  static recorder& instance() {
    static recorder* const r = [] {
      auto* made = new recorder;
      pallas::detail::hold_across_fork<&recorder::mutex_of>();
      return made;
    }();
    return *r;
  }
  static std::mutex& mutex_of() { return instance().mutex_; }

  recorder() {
    if (char const* path = std::getenv("PALLAS_TRACE"); path && *path) {
      at_exit_path_ = trace_path_for_this_process(path);
      enabled_.store(true, std::memory_order_relaxed);
      std::atexit([] { instance().write_at_exit(); });
    }
  }
  recorder(recorder const&) = delete;
  recorder& operator=(recorder const&) = delete;

  /// The atexit handler: writes the trace to `path`, warning (not failing) when nothing was
  /// recorded or the file cannot be written.
  bool write_at_exit(std::string const& path) const {
    bool const empty = [&] {
      std::lock_guard lock(mutex_);
      return events_.empty() && launches_.empty();
    }();
    if (empty)
      warn("pallas::trace: PALLAS_TRACE=" + path +
           ": nothing was recorded (no kernel ran while tracing was on); the trace is empty");
    return write_file(path, ends_with(path, ".svg"), launch_choice_from_env());
  }
  void write_at_exit() const { write_at_exit(at_exit_path_); }

  /// Writes the SVG picture of launch `which` or the JSON; warns and returns false when the
  /// file cannot be written (or the launch was not recorded).
  [[gnu::cold]] bool write_file(std::string const& path, bool svg, std::uint64_t which) const {
    std::ofstream out(path);
    if (!out) {
      warn("pallas::trace: cannot write the trace to " + path + " (" + std::strerror(errno) + ")");
      return false;
    }
    bool drawn = true;
    if (svg)
      drawn = write_svg(out, which);
    else
      write_json(out);
    out.flush();
    if (!out) {
      warn("pallas::trace: writing the trace to " + path + " failed (" + std::strerror(errno) + ")");
      return false;
    }
    if (!drawn) warn("pallas::trace: " + path + ": launch #" + std::to_string(which) + " was not recorded");
    return drawn;
  }

  bool enabled() const noexcept { return enabled_.load(std::memory_order_relaxed); }
  void enable(bool on) { enabled_.store(on, std::memory_order_relaxed); }
  void clear() {
    std::lock_guard lock(mutex_);
    events_.clear();
    launches_.clear();
  }

  void record(trace::event e) {
    std::lock_guard lock(mutex_);
    events_.push_back(std::move(e));
  }
  void record(trace::launch_info l) {
    std::lock_guard lock(mutex_);
    launches_.push_back(std::move(l));
  }

  std::vector<trace::event> events() const {
    std::lock_guard lock(mutex_);
    return events_;
  }
  std::vector<trace::launch_info> launches() const {
    std::lock_guard lock(mutex_);
    return launches_;
  }

  void write_json(std::ostream& out) const { detail::write_json(out, events(), launches()); }
  bool write_svg(std::ostream& out, std::uint64_t which) const {
    return detail::write_svg(out, events(), launches(), which);
  }

 private:
  mutable std::mutex mutex_;
  std::vector<trace::event> events_;
  std::vector<trace::launch_info> launches_;
  std::string at_exit_path_;
  std::atomic<bool> enabled_{false};
};

/// Records a span from construction to destruction when tracing is on; `fill(trace::event&)`
/// names it (called only then).
class span {
 public:
  template <class Fill>
  explicit span(Fill&& fill) {
    if (recorder::instance().enabled()) {
      active_ = true;
      fill(event_);
      event_.begin_ns = now_ns();  // the CPU interval inside the wall one: cpu_ns <= wall
      event_.cpu_ns = thread_cpu_ns();
    }
  }
  ~span() {
    if (active_) {
      event_.cpu_ns = cpu_since(event_.cpu_ns);
      event_.end_ns = now_ns();
      try {
        recorder::instance().record(std::move(event_));
      } catch (...) {  // out of memory: a span less, never a terminate from a destructor
      }
    }
  }
  span(span const&) = delete;
  span& operator=(span const&) = delete;

 private:
  bool active_ = false;
  trace::event event_;
};

/// Records a launch (its number, name, cores, wall and CPU time) when tracing is on.
/// The number of the last launch this thread ran while tracing (0: none): what the cost
/// report, published after the launch, attaches itself to.
inline std::uint64_t& launch_of_this_thread() {
  thread_local std::uint64_t id = 0;
  return id;
}

class launch_scope {
 public:
  launch_scope(std::uint64_t id, std::string_view name, std::string_view who, int num_cores, int cores_per_chip = 0,
               int first_core = 0) {
    if (recorder::instance().enabled()) {
      active_ = true;
      info_.id = id;
      info_.who = std::string(who);
      info_.name = name.empty() ? info_.who : std::string(name);
      info_.num_cores = num_cores;
      info_.cores_per_chip = cores_per_chip;
      info_.first_core = first_core;
      info_.begin_ns = now_ns();
      info_.cpu_ns = thread_cpu_ns();
    }
  }
  ~launch_scope() {
    if (active_) {
      launch_of_this_thread() = info_.id;
      info_.cpu_ns = cpu_since(info_.cpu_ns);
      info_.end_ns = now_ns();
      try {
        recorder::instance().record(std::move(info_));
      } catch (...) {
      }
    }
  }
  launch_scope(launch_scope const&) = delete;
  launch_scope& operator=(launch_scope const&) = delete;

 private:
  bool active_ = false;
  trace::launch_info info_;
};

}  // namespace pallas::detail

namespace pallas::trace {
/// Whether spans are being recorded (pl::trace::start(), or PALLAS_TRACE set).
inline bool enabled() { return detail::recorder::instance().enabled(); }
}  // namespace pallas::trace
