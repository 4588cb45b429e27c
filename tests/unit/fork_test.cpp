// fork(): the child has only the thread that forked, none of the device's threads. A child
// that launches gets a device of its own on first use; one that only exits exits (the
// parent's device is never joined in the child); a fork while another thread is inside a
// launch, and a grandchild, work too. Each child ends with exit() (under ASan,
// LeakSanitizer checks it then) and a status the parent checks; alarm() and the parent's
// wait limit turn a hang into a failure.
#include <pallas/pallas.hpp>

#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include <catch2/catch.hpp>

#include "../support/workloads.hpp"

// ThreadSanitizer kills, by default, a child of a multi-threaded fork that starts a thread
// (die_after_fork=1): the child's kernels start the child's device threads, as they must.
#if defined(__SANITIZE_THREAD__)
extern "C" char const* __tsan_default_options() { return "die_after_fork=0"; }
#elif defined(__has_feature)
#  if __has_feature(thread_sanitizer)
extern "C" char const* __tsan_default_options() { return "die_after_fork=0"; }
#  endif
#endif

namespace pl = pallas;
namespace pltpu = pallas::tpu;
namespace wl = pallas_test::workloads;

namespace {

/// One of each workload; true when every result (and every expected error) is right.
bool every_workload(float salt) {
  return wl::pipelined_add(salt) && wl::matmul(salt) && wl::manual_double_buffer(salt) && wl::semaphore_barrier(salt) &&
         wl::throws_on_one_core() && wl::deadlocks();
}

/// How a child ended, as a sentence ("" when it exited with 0).
std::string failure_of(int status) {
  if (WIFEXITED(status))
    return WEXITSTATUS(status) == 0 ? "" : "the child exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    int const sig = WTERMSIG(status);
    return "the child died of signal " + std::to_string(sig) + (sig == SIGALRM ? " (SIGALRM: it hung)" : "");
  }
  return "the child ended oddly (status " + std::to_string(status) + ")";
}

/// Forks; the child runs `child()` (its exit status) under alarm(limit) and ends with
/// exit(). The parent waits up to `limit` + 30 s, then kills it. Returns how it ended.
template <class F>
std::string in_child(F child, unsigned limit = 120) {
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t const pid = fork();
  if (pid < 0) return "fork failed";
  if (pid == 0) {
    alarm(limit);
    int code = 1;
    try {
      code = child();
    } catch (std::exception const& e) {
      std::fprintf(stderr, "child: %s\n", e.what());
      code = 2;
    }
    std::exit(code);  // not _exit: atexit handlers and LeakSanitizer run, as in a real child
  }
  auto const deadline = std::chrono::steady_clock::now() + std::chrono::seconds(limit + 30);
  int status = 0;
  for (;;) {
    pid_t const r = waitpid(pid, &status, WNOHANG);
    if (r == pid) return failure_of(status);
    if (r < 0) return "waitpid failed";
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return "the child hung past the parent's limit";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace

TEST_CASE("fork: a child launches kernels on a device of its own", "[fork][device]") {
  // The parent's device has threads now: cores of 2- and 4-core sets, maybe the DMA thread.
  REQUIRE(every_workload(1.0f));
  CHECK(in_child([] { return every_workload(2.0f) && every_workload(3.0f) ? 0 : 1; }) == "");
  SECTION("with the DMA thread in the parent and the child") {
    pltpu::scoped_dma_executor on_thread(pltpu::dma_executor::dma_thread);
    REQUIRE(wl::pipelined_add(4.0f));
    CHECK(in_child([] { return wl::pipelined_add(5.0f) && wl::manual_double_buffer(5.0f) ? 0 : 1; }) == "");
  }
  SECTION("a grandchild too") {
    CHECK(in_child([] {
            if (!wl::pipelined_add(6.0f)) return 1;
            std::string const grandchild = in_child([] { return every_workload(7.0f) ? 0 : 1; });
            if (!grandchild.empty()) std::fprintf(stderr, "grandchild: %s\n", grandchild.c_str());
            return grandchild.empty() && wl::semaphore_barrier(8.0f) ? 0 : 1;
          }) == "");
  }
  // The parent's device is unaffected.
  CHECK(every_workload(9.0f));
}

TEST_CASE("fork: a child that only exits exits", "[fork][device]") {
  REQUIRE(wl::pipelined_add(1.0f));
  REQUIRE(wl::semaphore_barrier(1.0f));
  CHECK(in_child([] { return 0; }) == "");
  CHECK(in_child([] { return 0; }, 20) == "");
}

TEST_CASE("fork: a fork while another thread is inside a launch gives the child a working device", "[fork][device]") {
  REQUIRE(wl::pipelined_add(1.0f));
  std::atomic<bool> inside{false}, release{false};
  std::thread busy([&] {
    auto hold = pl::kernel(pl::mesh<pltpu::TensorCoreMesh<"core", 2>>)([&] {
      inside.store(true);
      while (!release.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    });
    hold();
  });
  while (!inside.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  // The parent's primary core set is busy, its launch mutex may be held: none of it is the
  // child's.
  std::string const how = in_child([] { return every_workload(2.0f) ? 0 : 1; });
  release.store(true);
  busy.join();
  CHECK(how == "");
  CHECK(every_workload(3.0f));
}
