// The process-lifetime cases, one per run (tests/CMakeLists.txt registers each as a test
// through tests/cmake/run_helper.cmake, which requires exit status 0 and the line
// "lifetime <mode>: ok"):
//
//   atexit_before_first_use   an atexit handler registered before the first launch
//                             launches kernels (it runs after every static destructor of
//                             the library's objects, which are created later)
//   global_destructor         the destructor of a global constructed before the first
//                             launch launches kernels
//   exit_with_parked_threads  main returns after launches on 4 cores and the DMA thread:
//                             exit must not wait for the parked threads
//   exit_from_kernel_body     a kernel body calls exit() while another core of the launch
//                             waits on a semaphore
//
// alarm(60) turns a hang into a SIGALRM death; under ASan, LeakSanitizer checks at exit.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include <pallas/pallas.hpp>

#include "../support/workloads.hpp"

namespace pl = pallas;
namespace pltpu = pallas::tpu;
namespace wl = pallas_test::workloads;

namespace {

char const* mode = "";

/// Runs one of each workload; on a wrong result says which and ends the process with 1.
void run_all(char const* where) {
  struct {
    char const* name;
    bool (*run)();
  } const cases[] = {
      {"pipelined add", [] { return wl::pipelined_add(1.5f); }},
      {"matmul", [] { return wl::matmul(2.0f); }},
      {"manual double buffer", [] { return wl::manual_double_buffer(0.5f); }},
      {"semaphore barrier", [] { return wl::semaphore_barrier(3.0f); }},
      {"a kernel that throws on one core", [] { return wl::throws_on_one_core(); }},
      {"a deadlocking kernel", [] { return wl::deadlocks(); }},
  };
  for (auto const& c : cases) {
    bool ok = false;
    try {
      ok = c.run();
    } catch (std::exception const& e) {
      std::printf("lifetime %s: %s: %s threw: %s\n", mode, where, c.name, e.what());
    }
    if (!ok) {
      std::printf("lifetime %s: %s: %s is WRONG\n", mode, where, c.name);
      std::fflush(stdout);
      std::_Exit(1);
    }
  }
  std::printf("lifetime %s: ok (%s)\n", mode, where);
  std::fflush(stdout);
}

struct launches_when_destroyed {
  bool armed = false;
  ~launches_when_destroyed() {
    if (armed) run_all("in a global's destructor");
  }
};
launches_when_destroyed global_object;  // constructed before main, so before the first launch

}  // namespace

int main(int argc, char** argv) {
  alarm(60);
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <mode>\n", argv[0]);
    return 2;
  }
  mode = argv[1];
  std::string const m = mode;
  if (m == "atexit_before_first_use") {
    std::atexit([] { run_all("in an atexit handler registered before the first launch"); });
    run_all("in main");
    return 0;
  }
  if (m == "global_destructor") {
    global_object.armed = true;
    run_all("in main");
    return 0;
  }
  if (m == "exit_with_parked_threads") {
    pltpu::set_dma_executor(pltpu::dma_executor::dma_thread);
    run_all("in main");
    auto k = pl::kernel(pl::mesh<pltpu::TensorCoreMesh<"core", 4>>)([] {});
    k();
    return 0;  // the cores' threads and the DMA thread are parked now
  }
  if (m == "exit_from_kernel_body") {
    run_all("in main");
    auto k = pl::kernel(pl::mesh<pltpu::TensorCoreMesh<"core", 2>>,
                        pl::scratch_types<pltpu::SemaphoreType::REGULAR<>>)([](auto sem) {
      if (pl::axis_index<"core">() == 1) {
        pl::semaphore_wait(sem, 1);  // never signaled: core 0 ends the process first
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      std::printf("lifetime %s: ok (exit from core 0's body)\n", mode);
      std::fflush(stdout);
      std::exit(0);
    });
    k();
    std::printf("lifetime %s: the kernel returned after exit()\n", mode);
    return 1;
  }
  std::fprintf(stderr, "unknown mode '%s'\n", mode);
  return 2;
}
