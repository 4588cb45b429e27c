// SPDX-License-Identifier: Apache-2.0
#pragma once
// The trace recorder's out-of-line part (the environment, writing the files, recording),
// compiled once per program under separate compilation (config.hpp) and inline in every
// translation unit otherwise.

#include <pallas/trace/recorder.hpp>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <ostream>
#include <utility>

namespace pallas::detail {

PALLAS_DECL std::function<void(std::string const&)>& warning_sink() {
  // Never destroyed: the atexit handler that writes the trace may run after static destructors.
  static auto* const sink =
      new std::function<void(std::string const&)>([](std::string const& m) { std::cerr << m << '\n'; });
  return *sink;
}

PALLAS_DECL void warn(std::string const& message) {
  if (auto const& sink = warning_sink()) sink(message);
}

PALLAS_DECL std::uint64_t launch_choice_from_env() {
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

PALLAS_DECL std::string trace_path_for_this_process(std::string path) {
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

PALLAS_DECL recorder::recorder() {
  if (char const* path = std::getenv("PALLAS_TRACE"); path && *path) {
    at_exit_path_ = trace_path_for_this_process(path);
    enabled_.store(true, std::memory_order_relaxed);
    std::atexit([] { instance().write_at_exit(); });
  }
}

PALLAS_DECL bool recorder::write_at_exit(std::string const& path) const {
  bool const empty = [&] {
    std::lock_guard lock(mutex_);
    return events_.empty() && launches_.empty();
  }();
  if (empty)
    warn("pallas::trace: PALLAS_TRACE=" + path +
         ": nothing was recorded (no kernel ran while tracing was on); the trace is empty");
  return write_file(path, ends_with(path, ".svg"), launch_choice_from_env());
}

PALLAS_DECL bool recorder::write_file(std::string const& path, bool svg, std::uint64_t which) const {
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

PALLAS_DECL void recorder::clear() {
  std::lock_guard lock(mutex_);
  events_.clear();
  launches_.clear();
}

PALLAS_DECL void recorder::record(trace::event e) {
  std::lock_guard lock(mutex_);
  events_.push_back(std::move(e));
}

PALLAS_DECL void recorder::record(trace::launch_info l) {
  std::lock_guard lock(mutex_);
  launches_.push_back(std::move(l));
}

PALLAS_DECL std::vector<trace::event> recorder::events() const {
  std::lock_guard lock(mutex_);
  return events_;
}

PALLAS_DECL std::vector<trace::launch_info> recorder::launches() const {
  std::lock_guard lock(mutex_);
  return launches_;
}

PALLAS_DECL void recorder::write_json(std::ostream& out) const { detail::write_json(out, events(), launches()); }

PALLAS_DECL bool recorder::write_svg(std::ostream& out, std::uint64_t which) const {
  return detail::write_svg(out, events(), launches(), which);
}

PALLAS_DECL span::~span() {
  if (active_) {
    event_.cpu_ns = cpu_since(event_.cpu_ns);
    event_.end_ns = now_ns();
    try {
      recorder::instance().record(std::move(event_));
    } catch (...) {  // out of memory: a span less, never a terminate from a destructor
    }
  }
}

PALLAS_DECL launch_scope::launch_scope(std::uint64_t id, std::string_view name, std::string_view who, int num_cores, int cores_per_chip,
                                     int first_core, bool dma_thread) {
  if (recorder::instance().enabled()) {
    active_ = true;
    info_.id = id;
    info_.who = std::string(who);
    info_.name = name.empty() ? info_.who : std::string(name);
    info_.num_cores = num_cores;
    info_.cores_per_chip = cores_per_chip;
    info_.first_core = first_core;
    info_.dma_thread = dma_thread;
    info_.begin_ns = now_ns();
    info_.cpu_ns = thread_cpu_ns();
  }
}

PALLAS_DECL launch_scope::~launch_scope() {
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

}  // namespace pallas::detail
