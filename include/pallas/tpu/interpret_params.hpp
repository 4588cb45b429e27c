// SPDX-License-Identifier: Apache-2.0
#pragma once
// The conventions of Pallas' TPU interpret mode (`pltpu.InterpretParams`), where it and
// the hardware differ, as options:
//
//   uninitialized_memory  what uninitialized memory holds (outputs, scratch, pipeline slots,
//                         the padding of ragged blocks):
//                           poison (default)  NaN / INT_MIN / true, as checked mode fills it
//                                             (nothing is filled with PALLAS_CHECKED=0)
//                           nan               NaN / the largest integer / true, as the
//                                             interpreter's uninitialized_memory='nan'
//                           zero              zeros, as uninitialized_memory='zero'
//   input_fetch           when a pipeline reads an input block from HBM:
//                           ahead (default)   one step early, while the previous step runs,
//                                             as the hardware's pipeline does
//                           at_step           at the step that needs it, after every earlier
//                                             write-back, as the interpreter does (an input
//                                             aliased to an output then sees what earlier
//                                             steps wrote; read ahead, a fetch in flight
//                                             with a write-back of its bytes is a race)
//   detect_races          checked mode's happens-before race detector across cores
//                         (interpret mode's detect_races; pltpu::races_found() after a launch):
//                           report (default)  print each race once to stderr, carry on, as
//                                             the interpreter does; a racy kernel that
//                                             happens to give the right answer (fill_42)
//                                             keeps running
//                           throw_error       throw pallas::race_error at the racing access
//                           off               no detection (nothing costs a thing)
//                         PALLAS_DETECT_RACES=off|report|throw sets the default. Races with
//                         a copy in flight are errors whatever this says.
//
//   pltpu::set_interpret_params({.uninitialized = pltpu::uninitialized_memory::zero});
//   { pltpu::scoped_interpret_params p({.input_fetch = pltpu::input_fetch::at_step}); call(x); }
//
// The DMA order (InterpretParams.dma_execution_mode) is pltpu::set_dma_schedule. Race
// detection needs checked mode (PALLAS_CHECKED=1): without it there is none.

#include <pallas/config.hpp>
#include <pallas/detail/runtime/dma_order.hpp>
#include <pallas/detail/runtime/uninitialized.hpp>

namespace pallas::tpu {

/// What fresh VMEM/SMEM and outputs hold (interpret mode's `uninitialized_memory`).
enum class uninitialized_memory { poison, nan, zero };
/// When pipeline inputs are fetched: one step ahead, or at their step.
enum class input_fetch { ahead, at_step };
/// What a race between cores does: nothing, a report (races_found()), an exception.
enum class race_detection { off, report, throw_error };

/// `pltpu.InterpretParams`: the conventions of the next launches (set_interpret_params).
struct InterpretParams {
  uninitialized_memory uninitialized = uninitialized_memory::poison;  ///< fill of uninitialized memory
  tpu::input_fetch input_fetch = tpu::input_fetch::ahead;  ///< when inputs are fetched
  race_detection detect_races = race_detection::report;  ///< races between cores (PALLAS_DETECT_RACES)
  /// All fields equal.
  friend bool operator==(InterpretParams const&, InterpretParams const&) = default;
};

}  // namespace pallas::tpu

namespace pallas::detail {

/// The default of detect_races: PALLAS_DETECT_RACES (off, report, throw), else report.
PALLAS_DECL tpu::race_detection race_detection_from(char const* env);

}  // namespace pallas::detail

namespace pallas::tpu {

/// The conventions the next launches use.
PALLAS_DECL InterpretParams get_interpret_params();

/// Sets the conventions the next launches use (all threads).
PALLAS_DECL void set_interpret_params(InterpretParams p);

/// Sets conventions for its lifetime, then restores the previous ones.
class scoped_interpret_params {
 public:
  /// Sets `p` until the end of the scope.
  explicit scoped_interpret_params(InterpretParams p) : previous_(get_interpret_params()) { set_interpret_params(p); }
  ~scoped_interpret_params() { set_interpret_params(previous_); }
  scoped_interpret_params(scoped_interpret_params const&) = delete;
  scoped_interpret_params& operator=(scoped_interpret_params const&) = delete;

 private:
  InterpretParams previous_;
};

}  // namespace pallas::tpu

namespace pallas::detail {

/// The policy of a launch that starts now.
PALLAS_DECL launch_conventions launch_interpret_conventions();

}  // namespace pallas::detail

#if PALLAS_DEFINE_RUNTIME
#  include <pallas/tpu/interpret_params.ipp>
#endif
