// SPDX-License-Identifier: Apache-2.0
#pragma once
// A process-wide setting that every launch reads and any thread may set (the DMA executor,
// the DMA schedule, the interpret-mode conventions): a value behind a mutex, made once from
// the environment, never destroyed (launches may run at exit), its mutex held across fork.
//
//   tpu::dma_executor executor_from_environment();                 // the initial value
//   process_setting<&executor_from_environment>::get();            // any thread
//   process_setting<&executor_from_environment>::set(value);

#include <mutex>

#include <pallas/detail/runtime/fork_guard.hpp>

namespace pallas::detail {

template <auto Initial>
class process_setting {
 public:
  using value_type = decltype(Initial());

  static value_type get() {
    holder& h = instance();
    std::lock_guard lock(h.mutex);
    return h.value;
  }

  static void set(value_type v) {
    holder& h = instance();
    std::lock_guard lock(h.mutex);
    h.value = v;
  }

 private:
  struct holder {
    std::mutex mutex;
    value_type value = Initial();
  };

  static holder& instance() {
    static holder* const h = [] {
      auto* made = new holder;  // never destroyed: launches may run at exit
      hold_across_fork<&mutex_of>();
      return made;
    }();
    return *h;
  }

  static std::mutex& mutex_of() { return instance().mutex; }
};

}  // namespace pallas::detail
