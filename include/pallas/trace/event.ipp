// SPDX-License-Identifier: Apache-2.0
#pragma once
// The trace's launch labels, compiled once per program under separate compilation
// (config.hpp) and inline in every translation unit otherwise.

#include <pallas/trace/event.hpp>

namespace pallas::trace {

PALLAS_DECL std::string launch_info::label() const {
  std::string s = "#" + std::to_string(id) + " " + name;
  if (who != name) s += " (" + who + ", " + std::to_string(num_cores) + (num_cores == 1 ? " core)" : " cores)");
  else s += " (" + std::to_string(num_cores) + (num_cores == 1 ? " core)" : " cores)");
  return s;
}

}  // namespace pallas::trace
