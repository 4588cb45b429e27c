// SPDX-License-Identifier: Apache-2.0
// Core threads that start launches late ask for short scheduler slices for a window
// (wake_slice.hpp): the rule on synthetic latencies, and the request itself.

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdint>
#include <thread>

#include <pallas/pallas.hpp>

namespace {

using pallas::detail::wake_slice_rule;
using namespace std::chrono_literals;

}  // namespace

TEST_CASE("wake_slice_rule: short slices for a window after each late start", "[wake_slice]") {
  wake_slice_rule rule;
  // Quiet: starts 20-300 us after the launch was posted never ask for short slices.
  for (auto t = 0ms; t < 5000ms; t += 10ms) REQUIRE_FALSE(rule.observe(t.count() % 2 ? 20us : 300us, t));
  // A start 1 ms late (or later) asks for them, and they hold for the window.
  CHECK(rule.observe(wake_slice_rule::late, 5000ms));
  CHECK(rule.observe(50us, 5000ms + wake_slice_rule::window - 1ms));
  CHECK_FALSE(rule.observe(50us, 5000ms + wake_slice_rule::window));
  // Every late start extends the window from itself.
  CHECK(rule.observe(3500us, 8000ms));
  CHECK(rule.observe(4ms, 8900ms));
  CHECK(rule.observe(50us, 8900ms + wake_slice_rule::window - 1ms));
  CHECK_FALSE(rule.observe(50us, 8900ms + wake_slice_rule::window));
  // Just under the threshold is not late.
  CHECK_FALSE(rule.observe(wake_slice_rule::late - 1us, 20000ms));
}

#if defined(__linux__)
TEST_CASE("request_short_slices: the calling thread's slice request, and back", "[wake_slice]") {
  std::uint64_t before = 0, short_ns = 0, after = 0;
  bool set_short = false, set_default = false;
  std::thread([&] {  // not the test runner's thread
    before = pallas::detail::requested_slice_ns();
    set_short = pallas::detail::request_short_slices(true);
    short_ns = pallas::detail::requested_slice_ns();
    set_default = pallas::detail::request_short_slices(false);
    after = pallas::detail::requested_slice_ns();
  }).join();
  CHECK(set_short);
  CHECK(set_default);
  if (short_ns != 100'000) {  // kernels before 6.12 keep no slice request for normal threads
    WARN("this kernel ignores slice requests (sched_runtime " << short_ns << " ns after asking for 100 us)");
    return;
  }
  CHECK(before != 100'000);
  CHECK(after == before);  // the default slice again
}
#endif
