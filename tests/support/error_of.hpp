// The message of the pallas::error (of type E, pl::error by default) that f throws; the
// test fails when f throws none. Shared by the unit tests that check checked-mode and
// run-time error messages.
#pragma once

#include <string>

#include <catch2/catch.hpp>
#include <pallas/error.hpp>

namespace pallas_test {

template <class E = pallas::error, class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (E const& e) {
    return e.what();
  }
  FAIL("no error was thrown");
  return {};
}

}  // namespace pallas_test
