// SPDX-License-Identifier: Apache-2.0
// Soak (issue 14): 4 user threads launch a mixed workload 2,000 times between them (the
// pipelined add, the matmul, the manual double buffer, a semaphore barrier, a kernel that
// throws on one core, a deadlocking kernel; tests/support/workloads.hpp), launches of
// different threads overlapping on the device's core sets. Every result and every expected
// error is checked; after a warm-up the process's thread count must not grow and its
// resident memory must stay flat; a watchdog turns a hang into a failure. Exits 0 when all
// of that holds. Runs in every build, under ThreadSanitizer too.
#include <pallas/pallas.hpp>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "../support/workloads.hpp"
#include "../unit/watchdog.hpp"

namespace wl = pallas_test::workloads;

// AddressSanitizer keeps freed memory in a quarantine of up to 256 MiB, which the resident
// size would count as growth: the soak measures the library's memory, so it runs without
// one (the unit tests keep it, for use-after-free).
#if defined(__SANITIZE_ADDRESS__)
extern "C" char const* __asan_default_options() { return "quarantine_size_mb=0:thread_local_quarantine_size_kb=0"; }
#elif defined(__has_feature)
#  if __has_feature(address_sanitizer)
extern "C" char const* __asan_default_options() { return "quarantine_size_mb=0:thread_local_quarantine_size_kb=0"; }
#  endif
#endif

namespace {

/// A field of /proc/self/status ("Threads", "VmRSS" in kB), or -1.
long proc_status(std::string const& field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(field + ":", 0) == 0) return std::strtol(line.c_str() + field.size() + 1, nullptr, 10);
  return -1;
}

constexpr int user_threads = 4;
constexpr int launches = 2000;  // between the threads
constexpr int warm_up = 200;    // launches before the baseline is taken

}  // namespace

int main() {
  pallas_test::watchdog guard("the soak", std::chrono::seconds(1500));
  std::vector<std::function<bool(float)>> const mix = {
      [](float s) { return wl::pipelined_add(s); },
      [](float s) { return wl::matmul(s); },
      [](float s) { return wl::manual_double_buffer(s); },
      [](float s) { return wl::semaphore_barrier(s); },
      [](float) { return wl::throws_on_one_core(); },
      [](float) { return wl::deadlocks(); },
  };
  std::atomic<int> next{0}, wrong{0}, done{0};
  std::atomic<long> base_threads{-1}, base_rss{-1};
  auto const start = std::chrono::steady_clock::now();
  auto worker = [&](int me) {
    for (int k; (k = next.fetch_add(1)) < launches;) {
      std::size_t const which = static_cast<std::size_t>(k + me) % mix.size();
      if (!mix[which](static_cast<float>(k % 97))) {
        std::fprintf(stderr, "soak: launch %d (workload %zu, thread %d) gave a wrong result\n", k, which, me);
        ++wrong;
      }
      if (done.fetch_add(1) + 1 == warm_up) {
        base_threads = proc_status("Threads");
        base_rss = proc_status("VmRSS");
      }
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < user_threads; ++t) threads.emplace_back(worker, t);
  for (auto& t : threads) t.join();
  double const seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  // The user threads have ended: the count now must not exceed the baseline (which counted
  // them); the device's threads persist and must not have multiplied.
  long const end_threads = proc_status("Threads"), end_rss = proc_status("VmRSS");
  std::printf("soak: %d launches from %d threads in %.1f s; threads %ld -> %ld; RSS %ld -> %ld kB; spare core sets %d\n",
              launches, user_threads, seconds, base_threads.load(), end_threads, base_rss.load(), end_rss,
              pallas::detail::device::instance().num_spare_sets());
  bool ok = wrong == 0;
  if (end_threads > base_threads) {
    std::fprintf(stderr, "soak: the thread count grew after the warm-up\n");
    ok = false;
  }
  // Flat: within a quarter of the baseline plus 32 MiB (allocator and sanitizer caches).
  if (end_rss > base_rss + base_rss / 4 + 32 * 1024) {
    std::fprintf(stderr, "soak: resident memory grew after the warm-up\n");
    ok = false;
  }
  std::printf("soak: %s\n", ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
