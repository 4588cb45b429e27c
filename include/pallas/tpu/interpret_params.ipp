// SPDX-License-Identifier: Apache-2.0
#pragma once
// The process-wide interpret-mode conventions, compiled once per program under separate
// compilation (config.hpp) and inline in every translation unit otherwise.

#include <pallas/tpu/interpret_params.hpp>

#include <cstdlib>
#include <string_view>

#include <pallas/detail/runtime/process_setting.hpp>
#include <pallas/error.hpp>

namespace pallas::detail {

PALLAS_DECL tpu::race_detection race_detection_from(char const* env) {
  if (!env || !*env) return tpu::race_detection::report;
  std::string_view const v(env);
  if (v == "off") return tpu::race_detection::off;
  if (v == "report") return tpu::race_detection::report;
  if (v == "throw") return tpu::race_detection::throw_error;
  fail("pallas::interpret_params: PALLAS_DETECT_RACES='", v, "' is not one of off, report, throw");
}

// The conventions the environment asks for (PALLAS_DETECT_RACES).
inline tpu::InterpretParams interpret_params_from_environment() {
  return {.detect_races = race_detection_from(std::getenv("PALLAS_DETECT_RACES"))};
}

using interpret_setting = process_setting<&interpret_params_from_environment>;

PALLAS_DECL launch_conventions launch_interpret_conventions() {
  tpu::InterpretParams const p = tpu::get_interpret_params();
  uninitialized_policy const u = p.uninitialized == tpu::uninitialized_memory::nan    ? uninitialized_policy::nan
                                 : p.uninitialized == tpu::uninitialized_memory::zero ? uninitialized_policy::zero
                                                                                      : uninitialized_policy::poison;
  race_policy const r = p.detect_races == tpu::race_detection::off           ? race_policy::off
                        : p.detect_races == tpu::race_detection::throw_error ? race_policy::raise
                                                                             : race_policy::report;
  return {u, p.input_fetch == tpu::input_fetch::at_step, r};
}

}  // namespace pallas::detail

namespace pallas::tpu {

PALLAS_DECL InterpretParams get_interpret_params() { return detail::interpret_setting::get(); }

PALLAS_DECL void set_interpret_params(InterpretParams p) { detail::interpret_setting::set(p); }

}  // namespace pallas::tpu
