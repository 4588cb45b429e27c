// SPDX-License-Identifier: Apache-2.0
#pragma once
// The error context's formatting, compiled once per program under separate compilation
// (config.hpp) and inline in every translation unit otherwise.

#include <pallas/error.hpp>

namespace pallas::detail {

PALLAS_DECL std::string describe_error_context() {
  if (!current_error_context) return {};
  std::string parts[16];
  int n = 0;
  for (auto const* f = current_error_context; f && n < 16; f = f->outer) {
    std::ostringstream out;
    f->describe(out);
    parts[n++] = out.str();
  }
  std::string joined = " (";
  for (int k = n - 1; k >= 0; --k) joined += parts[k] + (k ? ", " : ")");
  return joined;
}

PALLAS_DECL std::string with_error_context(std::string message) {
  message += describe_error_context();
  return message;
}

}  // namespace pallas::detail
