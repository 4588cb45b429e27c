// SPDX-License-Identifier: Apache-2.0
#pragma once
// The process-wide trace recorder: spans and launches recorded while tracing is on
// (pl::trace::start(), or PALLAS_TRACE=file in the environment, written at exit), and the
// RAII helpers the library records them with. Nothing here reads a clock while tracing is off.

#include <atomic>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include <pallas/config.hpp>
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
std::function<void(std::string const&)>& warning_sink();
void warn(std::string const& message);

/// PALLAS_TRACE_LAUNCH: "last" (or unset), "all", or a launch's number.
std::uint64_t launch_choice_from_env();

/// PALLAS_TRACE's path for this process: under an MPI job of several ranks (as mpirun's
/// environment says) rank r writes `run.rank<r>.json` for `run.json`, so that the ranks do
/// not overwrite one another's trace.
std::string trace_path_for_this_process(std::string path);

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

  recorder();
  recorder(recorder const&) = delete;
  recorder& operator=(recorder const&) = delete;

  /// The atexit handler: writes the trace to `path`, warning (not failing) when nothing was
  /// recorded or the file cannot be written.
  bool write_at_exit(std::string const& path) const;
  void write_at_exit() const { write_at_exit(at_exit_path_); }

  /// Writes the SVG picture of launch `which` or the JSON; warns and returns false when the
  /// file cannot be written (or the launch was not recorded).
  [[gnu::cold]] bool write_file(std::string const& path, bool svg, std::uint64_t which) const;

  bool enabled() const noexcept { return enabled_.load(std::memory_order_relaxed); }
  void enable(bool on) { enabled_.store(on, std::memory_order_relaxed); }
  void clear();

  void record(trace::event e);
  void record(trace::launch_info l);

  std::vector<trace::event> events() const;
  std::vector<trace::launch_info> launches() const;

  void write_json(std::ostream& out) const;
  bool write_svg(std::ostream& out, std::uint64_t which) const;

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
  ~span();
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
               int first_core = 0, bool dma_thread = false);
  ~launch_scope();
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

#if PALLAS_DEFINE_RUNTIME
#  include <pallas/trace/recorder.ipp>
#endif
