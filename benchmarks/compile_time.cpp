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
// (checked mode on: no NDEBUG). The time is the compiler's CPU time (user + system, from
// getrusage of the children), the least of three runs, so a busy machine inflates it less
// than wall time would; the wall time is printed beside it.

#include <sys/resource.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "goals.hpp"

#ifndef PALLAS_BENCH_CXX
#error "benchmarks/CMakeLists.txt defines PALLAS_BENCH_CXX, PALLAS_SOURCE_DIR, PALLAS_EIGEN_DIR"
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
                              PALLAS_SOURCE_DIR + "/include -isystem " + PALLAS_EIGEN_DIR +
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

compile_time best_of_three(std::string const& label, std::string const& source,
                           std::string const& flags = "") {
  compile_time best{1e30, 1e30};
  for (int run = 0; run < 3; ++run) {
    compile_time const t = compile_once(source, flags);
    best.cpu_seconds = std::min(best.cpu_seconds, t.cpu_seconds);
    best.wall_seconds = std::min(best.wall_seconds, t.wall_seconds);
  }
  std::printf("%-16s %6.2f s CPU  %6.2f s wall  (%s)\n", label.c_str(), best.cpu_seconds,
              best.wall_seconds, source.c_str());
  return best;
}

std::string write_tu(std::string const& name, std::string const& text) {
  std::string const path = (std::filesystem::temp_directory_path() / name).string();
  std::ofstream(path) << text;
  return path;
}

}  // namespace

int main() {
  std::string const examples = std::string(PALLAS_SOURCE_DIR) + "/examples/";
  std::string const reference = write_tu(
      "pallas_bench_std.cpp",
      "#include <iostream>\n#include <thread>\n#include <vector>\n"
      "int main() { std::vector<int> v(4); std::jthread t([&] { v[0] = 1; }); t.join();\n"
      "  std::cout << v[0] << '\\n'; }\n");
  std::string const umbrella =
      write_tu("pallas_bench_umbrella.cpp", "#include <pallas/pallas.hpp>\nint main() {}\n");

  std::printf("compiler: %s -std=c++20 -O2 (least of 3 runs each)\n", PALLAS_BENCH_CXX);
  compile_time const std_tu = best_of_three("std reference", reference);
  compile_time const umbrella_tu = best_of_three("umbrella", umbrella);
  compile_time const add_tu =
      best_of_three("pipelined add", examples + "add_matrices_pipelined/main.cpp");
  compile_time const matmul_tu = best_of_three("matmul", examples + "matmul/main.cpp");
  std::string const separate = "-DPALLAS_SEPARATE_COMPILATION";
  std::string const runtime =
      write_tu("pallas_bench_runtime.cpp", "#include <pallas/runtime_source.hpp>\n");
  compile_time const runtime_tu = best_of_three("runtime (once)", runtime, separate);
  compile_time const umbrella_separate = best_of_three("umbrella, sep.", umbrella, separate);
  compile_time const add_separate =
      best_of_three("pipelined add, sep.", examples + "add_matrices_pipelined/main.cpp", separate);
  compile_time const matmul_separate =
      best_of_three("matmul, sep.", examples + "matmul/main.cpp", separate);
  std::filesystem::remove(object);

  std::printf("\n");
  pallas_bench::print_goal("compile_umbrella_vs_std", umbrella_tu.cpu_seconds / std_tu.cpu_seconds,
                           "<=", 3);
  pallas_bench::print_goal("compile_pipelined_add_vs_std",
                           add_tu.cpu_seconds / std_tu.cpu_seconds, "<=", 6);
  pallas_bench::print_goal("compile_matmul_vs_std", matmul_tu.cpu_seconds / std_tu.cpu_seconds,
                           "<=", 8);
  pallas_bench::print_goal("compile_umbrella_separate_vs_std",
                           umbrella_separate.cpu_seconds / std_tu.cpu_seconds, "<=", 3);
  pallas_bench::print_goal("compile_pipelined_add_separate_vs_std",
                           add_separate.cpu_seconds / std_tu.cpu_seconds, "<=", 6);
  pallas_bench::print_goal("compile_matmul_separate_vs_std",
                           matmul_separate.cpu_seconds / std_tu.cpu_seconds, "<=", 8);
  std::printf("compile_runtime_vs_std: %.2f (information)\n",
              runtime_tu.cpu_seconds / std_tu.cpu_seconds);
}
