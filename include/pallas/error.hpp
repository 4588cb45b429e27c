// SPDX-License-Identifier: Apache-2.0
#pragma once
// The pallas::error family: every run-time failure the library reports.

#include <cstddef>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

#include <pallas/config.hpp>

namespace pallas {

/// Base of every exception the library throws.
class error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// An index, slice or block that leaves its array.
class index_error : public error {
 public:
  using error::error;
};

/// Run-time extents or sizes that do not agree.
class shape_error : public error {
 public:
  using error::error;
};

/// A data race between a copy in flight and an access (checked mode).
class race_error : public error {
 public:
  using error::error;
};

/// Every running core is blocked on a semaphore that nothing can signal any more.
class deadlock_error : public error {
 public:
  using error::error;
};

/// Something left behind: a semaphore not zero when the kernel or its run_scoped ends, a
/// copy started and never waited (checked mode).
class leak_error : public error {
 public:
  using error::error;
};

/// A file that cannot be read or written, or that does not hold what was asked for
/// (pl::load_npy: not a .npy file, another dtype or shape).
class io_error : public error {
 public:
  using error::error;
};

namespace detail {

/// The type a message part is formatted as: string literals as `char const*`, so that
/// messages differing only in their literals' lengths share one formatter.
template <class T>
struct message_part {
  using type = T;
};
template <std::size_t N>
struct message_part<char[N]> {
  using type = char const*;
};

/// Streams every argument into one string (str's formatter).
template <class... Parts>
[[gnu::cold]] std::string format_parts(Parts const&... parts) {
  std::ostringstream out;
  (out << ... << parts);
  return out.str();
}

/// Streams every argument into one string.
template <class... Parts>
std::string str(Parts const&... parts) {
  return format_parts<typename message_part<Parts>::type...>(parts...);
}

/// Where the current thread is (core, grid point, operand): a stack of frames the runtime
/// pushes, so an error raised deep inside a kernel names its place.
class error_context {
 public:
  virtual ~error_context() = default;
  virtual void describe(std::ostream& out) const = 0;
  error_context const* outer = nullptr;
};

inline thread_local error_context const* current_error_context = nullptr;

/// Pushes a frame for its lifetime.
class scoped_error_context {
 public:
  explicit scoped_error_context(error_context& frame) noexcept : frame_(frame) {
    frame_.outer = current_error_context;
    current_error_context = &frame_;
  }
  ~scoped_error_context() { current_error_context = frame_.outer; }
  scoped_error_context(scoped_error_context const&) = delete;
  scoped_error_context& operator=(scoped_error_context const&) = delete;

 private:
  error_context& frame_;
};

/// The current frames, innermost last: " (core 1, grid point (0, 3))", or "".
[[gnu::cold]] std::string describe_error_context();

/// `message` followed by describe_error_context().
[[gnu::cold]] std::string with_error_context(std::string message);

/// fail's thrower, one per list of part types (string literals as `char const*`).
template <class E, class... Parts>
[[noreturn, gnu::cold, gnu::noinline]] void fail_with(Parts const&... parts) {
  throw E(with_error_context(format_parts(parts...)));
}

/// Throws E (a pallas::error) whose message is the concatenated parts followed by the
/// current error context.
template <class E = error, class... Parts>
[[noreturn]] void fail(Parts const&... parts) {
  fail_with<E, typename message_part<Parts>::type...>(parts...);
}

}  // namespace detail
}  // namespace pallas

#if PALLAS_DEFINE_RUNTIME
#  include <pallas/error.ipp>
#endif
