#pragma once
// Goal lines for pallas-cpp benchmarks (see benchmarks/README.md).
//
// A benchmark program registers its Google Benchmark functions as usual, declares its
// goals as ratios of two of them, and ends with PALLAS_BENCHMARK_MAIN(). After the runs it
// prints one line per goal, the format benchmarks/run.sh collects:
//
//     add_pipelined_vs_fused: 0.93 (goal >= 0.8)
//
//   static int const g1 = pallas_bench::speed_goal(
//       "add_pipelined_vs_fused", "BM_add_pipelined/real_time", "BM_add_fused/real_time",
//       ">=", 0.8);   // ratio = time(reference) / time(measured): > 1 means faster
//   static int const g2 = pallas_bench::time_goal(
//       "launch_vs_jthread", "BM_launch", "BM_jthread", "<=", 0.5);
//                     // ratio = time(measured) / time(reference): < 1 means faster
//
// Names are the benchmark names as Google Benchmark prints them (with /args,
// /real_time, /threads:N suffixes). With --benchmark_repetitions the median is used.
// A program that computes a ratio itself calls pallas_bench::print_goal(...) instead; one
// that times variants itself records them (record_seconds) and names them in goals.

#include <benchmark/benchmark.h>

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace pallas_bench {

struct goal {
  std::string name;       // [a-z0-9_ .-]+
  std::string measured;   // benchmark name
  std::string reference;  // benchmark name
  bool speed;             // true: time(reference)/time(measured); false: the inverse
  std::string op;         // ">=" or "<=" ("" for information: a ratio with no goal)
  double value;
};

inline std::vector<goal>& goals() {
  static std::vector<goal> all;
  return all;
}

inline bool valid_name(std::string const& name) {
  if (name.empty()) return false;
  for (char ch : name)
    if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || std::strchr("_ .-", ch)))
      return false;
  return true;
}

inline int add_goal(goal g) {
  bool const information = g.op.empty();
  if (!valid_name(g.name) || (!information && g.op != ">=" && g.op != "<=") || !(g.value >= 0)) {
    std::fprintf(stderr, "pallas_bench: bad goal '%s' (name [a-z0-9_ .-]+, op >= or <=)\n",
                 g.name.c_str());
    std::abort();
  }
  goals().push_back(std::move(g));
  return 0;
}

/// "measured runs at <ratio> times the speed of reference": time(reference)/time(measured).
inline int speed_goal(std::string name, std::string measured, std::string reference,
                      std::string op, double value) {
  return add_goal({std::move(name), std::move(measured), std::move(reference), true,
                   std::move(op), value});
}

/// "measured takes <ratio> times the time of reference": time(measured)/time(reference).
inline int time_goal(std::string name, std::string measured, std::string reference,
                     std::string op, double value) {
  return add_goal({std::move(name), std::move(measured), std::move(reference), false,
                   std::move(op), value});
}

/// A speed ratio printed as information, `<name>: <ratio> (information)`: what a goal is
/// measured against (a ceiling), not a goal; run.sh does not collect it.
inline int speed_information(std::string name, std::string measured, std::string reference) {
  return add_goal({std::move(name), std::move(measured), std::move(reference), true, "", 0});
}

/// A number as "0.8", "1.0", "12.5": shortest round-trip form, at least one decimal.
inline std::string format_value(double v) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, ec == std::errc{} ? end : buf);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

/// Prints one goal line: `<name>: <ratio> (goal <op> <value>)`.
inline void print_goal(std::string const& name, double ratio, std::string const& op,
                       double value) {
  std::printf("%s: %.2f (goal %s %s)\n", name.c_str(), ratio, op.c_str(),
              format_value(value).c_str());
  std::fflush(stdout);
}

/// The console reporter that also keeps each benchmark's real time per iteration.
class recording_reporter : public benchmark::ConsoleReporter {
 public:
  std::map<std::string, double> seconds;  // name -> real seconds per iteration
  std::map<std::string, bool> from_median;

  void ReportRuns(std::vector<Run> const& runs) override {
    for (Run const& run : runs) {
      if (run.error_occurred || run.iterations == 0) continue;
      bool const median = run.run_type == Run::RT_Aggregate && run.aggregate_name == "median";
      if (run.run_type == Run::RT_Aggregate && !median) continue;
      std::string name = run.run_name.str();
      if (from_median[name] && !median) continue;
      seconds[name] = run.GetAdjustedRealTime() / benchmark::GetTimeUnitMultiplier(run.time_unit);
      from_median[name] = median;
    }
    ConsoleReporter::ReportRuns(runs);
  }
};

/// Times a benchmark measured itself (e.g. several variants interleaved launch by launch,
/// so that all see the same machine), by name: goals may name them like benchmarks.
inline std::map<std::string, double>& recorded_seconds() {
  static std::map<std::string, double> all;
  return all;
}
inline void record_seconds(std::string const& name, double seconds) { recorded_seconds()[name] = seconds; }

/// Runs the registered benchmarks, then prints the goal lines. Returns non-zero when a
/// goal names a benchmark that did not run (unless --benchmark_filter was given).
inline int main(int argc, char** argv) {
  bool filtered = false;
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--benchmark_filter", 18) == 0) filtered = true;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  recording_reporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();

  for (auto const& [name, s] : recorded_seconds()) reporter.seconds[name] = s;
  int status = 0;
  if (!goals().empty()) std::printf("\n");  // after the reporter's trailing colour reset
  for (goal const& g : goals()) {
    auto m = reporter.seconds.find(g.measured);
    auto r = reporter.seconds.find(g.reference);
    if (m == reporter.seconds.end() || r == reporter.seconds.end()) {
      std::fprintf(stderr, "pallas_bench: goal %s: benchmark %s did not run\n", g.name.c_str(),
                   (m == reporter.seconds.end() ? g.measured : g.reference).c_str());
      if (!filtered) status = 1;
      continue;
    }
    double const ratio = g.speed ? r->second / m->second : m->second / r->second;
    if (g.op.empty())
      std::printf("%s: %.2f (information)\n", g.name.c_str(), ratio);
    else
      print_goal(g.name, ratio, g.op, g.value);
  }
  return status;
}

}  // namespace pallas_bench

#define PALLAS_BENCHMARK_MAIN() \
  int main(int argc, char** argv) { return pallas_bench::main(argc, argv); }
