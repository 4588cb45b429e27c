// Polls a condition another thread makes true (a thread's scheduling policy, a blocked
// lock): true as soon as it holds, false after 10 s.
#pragma once

#include <chrono>
#include <thread>

namespace pallas_test {

template <class Pred>
bool eventually(Pred pred) {
  auto const deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!pred()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

}  // namespace pallas_test
