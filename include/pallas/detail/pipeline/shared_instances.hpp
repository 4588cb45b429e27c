// SPDX-License-Identifier: Apache-2.0
#pragma once
// The pipeline engine's templates that do not depend on a kernel, only on the grid's rank R
// and the operand count N: the executor (run_plan), the run-time plan builder and the
// run-time grid rules. Under separate compilation (config.hpp) the common shapes below are
// compiled once, in the runtime's translation unit, and every kernel translation unit
// declares them extern instead of compiling them again (the pipelined add example: 5.0 s
// -> 3.6-4.3 s of g++ -O2, its object code 63 KB -> 46 KB). Other shapes are compiled where
// they are used, as in header-only builds.

#include <array>
#include <cstddef>
#include <span>

#include <pallas/config.hpp>
#include <pallas/detail/pipeline/executor.hpp>
#include <pallas/detail/pipeline/operand_io.hpp>
#include <pallas/detail/pipeline/plan.hpp>
#include <pallas/detail/pipeline/plan_builder.hpp>
#include <pallas/detail/pipeline/rules.hpp>

/// The (grid rank, operand count) pairs the runtime compiles: grid ranks 1 to 3, 2 to 4
/// operands (inputs and outputs). Each costs the runtime's translation unit about 0.5 s. A
/// program may list its own, the same for every translation unit and the runtime's:
/// `-D'PALLAS_SHARED_PIPELINE_SHAPES(X)=X(2, 3) X(4, 5)'`.
#ifndef PALLAS_SHARED_PIPELINE_SHAPES
#  define PALLAS_SHARED_PIPELINE_SHAPES(X) \
    X(1, 2) X(1, 3) X(1, 4) X(2, 2) X(2, 3) X(2, 4) X(3, 2) X(3, 3) X(3, 4)
#endif

/// The templates of one shape, for an explicit instantiation declaration (`extern template`)
/// or definition (`template`).
#define PALLAS_PIPELINE_SHAPE_INSTANCES(how, R, N)                                                                  \
  how void run_plan<R, N>(core_state&, int, plan_view<R, N> const&, std::span<operand_io>, bool, body_call);       \
  how void build_plan_at_run_time<R, N>(dynamic_plan<R, N>&, plan_grid<R> const&, std::array<operand_desc, N> const&, \
                                        erased_block_of<R> const&, int);                                           \
  how rule_violation check_grid_rules<plan_view<R, N>>(plan_view<R, N> const&, int);

#if defined(PALLAS_SEPARATE_COMPILATION)
namespace pallas::detail {
#  define PALLAS_DECLARE_PIPELINE_SHAPE(R, N) PALLAS_PIPELINE_SHAPE_INSTANCES(extern template, R, N)
PALLAS_SHARED_PIPELINE_SHAPES(PALLAS_DECLARE_PIPELINE_SHAPE)
#  undef PALLAS_DECLARE_PIPELINE_SHAPE
}  // namespace pallas::detail
#endif

#if PALLAS_DEFINE_RUNTIME
#  include <pallas/detail/pipeline/shared_instances.ipp>
#endif
