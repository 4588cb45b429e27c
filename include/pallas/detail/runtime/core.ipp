// SPDX-License-Identifier: Apache-2.0
#pragma once
// core_error_context's message, compiled once per program under separate compilation
// (config.hpp) and inline in every translation unit otherwise.

#include <pallas/detail/runtime/core.hpp>

namespace pallas::detail {

PALLAS_DECL core_error_context::core_error_context(int core) : core_("core " + std::to_string(core)) {}

PALLAS_DECL void core_error_context::describe(std::ostream& out) const { out << core_; }

}  // namespace pallas::detail
