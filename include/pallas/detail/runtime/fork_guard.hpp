// SPDX-License-Identifier: Apache-2.0
#pragma once
// fork() in a program with threads: the child has only the thread that called fork, so a
// mutex another thread held at that moment would stay locked in the child forever, and
// the data it guards half-changed. The library's process-wide mutexes are held across
// fork (pthread_atfork): the forking thread takes each before the fork and releases it on
// both sides after, so the child finds it free and its data whole. Each of these mutexes
// is a leaf (no thread holds one while it takes another), so the order in which fork takes
// them cannot deadlock.
//
//   detail::hold_across_fork<&mutex_getter>();                 // once per mutex
//   detail::hold_across_fork<&mutex_getter, &in_the_child>();  // and run this in the child
//
// `in_the_child` runs after fork, in the child, while the mutex is still held; it must only
// touch memory (the child may not even be allowed to allocate).

#include <mutex>

#if defined(__unix__) || defined(__APPLE__)
#  include <pthread.h>
#  define PALLAS_DETAIL_HAS_ATFORK 1
#else
#  define PALLAS_DETAIL_HAS_ATFORK 0
#endif

namespace pallas::detail {

inline void nothing_in_the_child() noexcept {}

/// Registers, once per Mutex, the fork handlers that hold `Mutex()` across fork().
/// `Mutex()` must return a mutex that is never destroyed.
template <std::mutex& (*Mutex)(), void (*InTheChild)() noexcept = &nothing_in_the_child>
void hold_across_fork() noexcept {
#if PALLAS_DETAIL_HAS_ATFORK
  static bool const registered = [] {
    ::pthread_atfork([] { Mutex().lock(); }, [] { Mutex().unlock(); },
                     [] {
                       InTheChild();
                       Mutex().unlock();
                     });
    return true;
  }();
  (void)registered;
#endif
}

}  // namespace pallas::detail
