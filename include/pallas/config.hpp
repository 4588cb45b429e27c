#pragma once
// Configuration switches. Every macro the library reads is spelled PALLAS_*.
//
//   PALLAS_CHECKED   1: run-time checks (bounds, poisoning, races, leaks, deadlocks).
//                    Defaults to 1 unless NDEBUG is defined.

#ifndef PALLAS_CHECKED
#  ifdef NDEBUG
#    define PALLAS_CHECKED 0
#  else
#    define PALLAS_CHECKED 1
#  endif
#endif

namespace pallas {

/// True when the library's run-time checks are compiled in.
inline constexpr bool checked_mode = PALLAS_CHECKED != 0;

}  // namespace pallas
