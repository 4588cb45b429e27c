// A watchdog for tests whose failure mode is a hang: if the scope it guards has not ended
// after `limit`, it says what hung and ends the process with status 3, so that the test
// fails at once instead of waiting for ctest's timeout.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>

namespace pallas_test {

class watchdog {
 public:
  watchdog(std::string what, std::chrono::seconds limit) : what_(std::move(what)) {
    thread_ = std::thread([this, limit] {
      std::unique_lock lock(mutex_);
      if (!done_cv_.wait_for(lock, limit, [&] { return done_; })) {
        std::fprintf(stderr, "watchdog: %s did not finish within %lld s (a hang)\n", what_.c_str(),
                     static_cast<long long>(limit.count()));
        std::fflush(stderr);
        std::_Exit(3);
      }
    });
  }
  ~watchdog() {
    {
      std::lock_guard lock(mutex_);
      done_ = true;
    }
    done_cv_.notify_one();
    thread_.join();
  }
  watchdog(watchdog const&) = delete;
  watchdog& operator=(watchdog const&) = delete;

 private:
  std::string what_;
  std::mutex mutex_;
  std::condition_variable done_cv_;
  bool done_ = false;
  std::thread thread_;
};

}  // namespace pallas_test
