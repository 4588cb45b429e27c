// Compile time of kernel translation units against a reference TU that includes only
// <vector>, <iostream> and <thread> (issue: "kernels that build in seconds"):
//   compile_umbrella_vs_std        #include <pallas/pallas.hpp> and an empty main   goal <= 3
//   compile_pipelined_add_vs_std   examples/add_matrices_pipelined/main.cpp         goal <= 6
//   compile_matmul_vs_std          examples/matmul/main.cpp                          goal <= 8
//   compile_*_separate_vs_std      the same TUs under separate compilation
//                                  (-DPALLAS_SEPARATE_COMPILATION: the runtime compiled once,
//                                  elsewhere), same goals; compile_runtime_vs_std is that one
//                                  runtime TU (information: it is built once per program)
// Every TU is compiled with the same compiler, `-std=c++20 -O2 -c`, as a user's build would
// (checked mode on: no NDEBUG), with the flags pallas::pallas gives for pl::dot's matrix unit
// (BLIS's, or Eigen's where BLIS was not found; printed first). The time is the compiler's CPU time (user + system, from
// getrusage of the children), so a busy machine inflates it less than wall time would; each
// ratio is the median over three rounds of a TU timed right after the reference TU.

#include <sys/resource.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "goals.hpp"

#ifndef PALLAS_BENCH_CXX
#error "benchmarks/CMakeLists.txt defines PALLAS_BENCH_CXX, PALLAS_SOURCE_DIR, PALLAS_MATRIX_UNIT_FLAGS"
#endif

namespace {

struct compile_time {
  double cpu_seconds;
  double wall_seconds;
};

double children_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_CHILDREN, &usage);
  auto seconds = [](timeval t) { return double(t.tv_sec) + double(t.tv_usec) * 1e-6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

std::string const object = (std::filesystem::temp_directory_path() / "pallas_bench_tu.o").string();

// Compiles `source` once; exits when the compiler fails (a broken TU times nothing).
compile_time compile_once(std::string const& source, std::string const& flags) {
  std::string const command = std::string(PALLAS_BENCH_CXX) + " -std=c++20 -O2 " + flags + " -I" +
                              PALLAS_SOURCE_DIR + "/include " + PALLAS_MATRIX_UNIT_FLAGS +
                              " -c " + source + " -o " + object;
  double const cpu_before = children_cpu_seconds();
  auto const wall_before = std::chrono::steady_clock::now();
  int const status = std::system(command.c_str());
  auto const wall_after = std::chrono::steady_clock::now();
  if (status != 0) {
    std::fprintf(stderr, "bench_compile_time: '%s' failed (status %d)\n", command.c_str(), status);
    std::exit(1);
  }
  return {children_cpu_seconds() - cpu_before,
          std::chrono::duration<double>(wall_after - wall_before).count()};
}

std::string write_tu(std::string const& name, std::string const& text) {
  std::string const path = (std::filesystem::temp_directory_path() / name).string();
  std::ofstream(path) << text;
  return path;
}

}  // namespace

int main() {
  std::printf("bench_compile_time: %s -std=c++20 -O2 %s\n", PALLAS_BENCH_CXX, PALLAS_MATRIX_UNIT_FLAGS);
  std::string const examples = std::string(PALLAS_SOURCE_DIR) + "/examples/";
  std::string const reference = write_tu(
      "pallas_bench_std.cpp",
      "#include <iostream>\n#include <thread>\n#include <vector>\n"
      "int main() { std::vector<int> v(4); std::jthread t([&] { v[0] = 1; }); t.join();\n"
      "  std::cout << v[0] << '\\n'; }\n");
  std::string const umbrella =
      write_tu("pallas_bench_umbrella.cpp", "#include <pallas/pallas.hpp>\nint main() {}\n");

  std::string const separate = "-DPALLAS_SEPARATE_COMPILATION";
  std::string const runtime =
      write_tu("pallas_bench_runtime.cpp", "#include <pallas/runtime_source.hpp>\n");
  std::string const add = examples + "add_matrices_pipelined/main.cpp";
  std::string const matmul = examples + "matmul/main.cpp";
  struct tu {
    char const* goal;  // the goal line's name; nullptr: information
    double limit;
    std::string source, flags;
    std::vector<double> ratios{};
    compile_time best{1e30, 1e30};
  };
  std::vector<tu> tus = {
      {"compile_umbrella_vs_std", 3, umbrella, ""},
      {"compile_pipelined_add_vs_std", 6, add, ""},
      {"compile_matmul_vs_std", 8, matmul, ""},
      {"compile_umbrella_separate_vs_std", 3, umbrella, separate},
      {"compile_pipelined_add_separate_vs_std", 6, add, separate},
      {"compile_matmul_separate_vs_std", 8, matmul, separate},
      {"compile_runtime_vs_std", 0, runtime, separate},
  };
  // This VM's speed drifts by a third over minutes: each TU is timed right after the
  // reference, and its ratio is the median of the rounds' paired ratios.
  constexpr int rounds = 3;
  std::printf("compiler: %s -std=c++20 -O2 (%d rounds, each TU right after the reference)\n",
              PALLAS_BENCH_CXX, rounds);
  compile_time std_best{1e30, 1e30};
  for (int round = 0; round < rounds; ++round)
    for (tu& t : tus) {
      compile_time const r = compile_once(reference, "");
      compile_time const m = compile_once(t.source, t.flags);
      std_best = {std::min(std_best.cpu_seconds, r.cpu_seconds), std::min(std_best.wall_seconds, r.wall_seconds)};
      t.best = {std::min(t.best.cpu_seconds, m.cpu_seconds), std::min(t.best.wall_seconds, m.wall_seconds)};
      t.ratios.push_back(m.cpu_seconds / r.cpu_seconds);
    }
  std::filesystem::remove(object);
  std::printf("%-40s %6.2f s CPU (least)\n", "std reference", std_best.cpu_seconds);
  for (tu const& t : tus)
    std::printf("%-40s %6.2f s CPU (least)  %s %s\n", t.goal, t.best.cpu_seconds, t.source.c_str(), t.flags.c_str());

  std::printf("\n");
  for (tu& t : tus) {
    std::sort(t.ratios.begin(), t.ratios.end());
    double const ratio = t.ratios[t.ratios.size() / 2];
    if (t.limit > 0)
      pallas_bench::print_goal(t.goal, ratio, "<=", t.limit);
    else
      std::printf("%s: %.2f (information: built once per program)\n", t.goal, ratio);
  }
}

