// SPDX-License-Identifier: Apache-2.0
#pragma once
// pallas-cpp: the JAX Pallas TPU kernel model as a header-only C++20 library.
//
//   #include <pallas/pallas.hpp>
//   namespace pl = pallas;
//   namespace pltpu = pallas::tpu;

/// @namespace pallas
/// The Pallas model (`jax.experimental.pallas`, spelled `pl`): arrays, refs and memory
/// spaces, kernels and `pallas_call`, grids and block specs, block arithmetic, semaphores.

/// @namespace pallas::tpu
/// The TPU parts of Pallas (`jax.experimental.pallas.tpu`, spelled `pltpu`): meshes of
/// TensorCores, VMEM/SMEM scratch, copies, semaphores, `emit_pipeline`, chip facts, and how
/// the library schedules copies (DMA orders and executors).

/// @namespace pallas::trace
/// The timeline of pipelines and copies (`PALLAS_TRACE`): Perfetto JSON and an SVG.

#include <pallas/config.hpp>
#include <pallas/error.hpp>
#include <pallas/shape.hpp>
#include <pallas/memory_space.hpp>
#include <pallas/slice.hpp>
#include <pallas/ref.hpp>
#include <pallas/array.hpp>
#include <pallas/shape_dtype_struct.hpp>
#include <pallas/dtype.hpp>
#include <pallas/expr/scalar_dtype.hpp>
#include <pallas/expr/expression.hpp>
#include <pallas/expr/ops.hpp>
#include <pallas/expr/assign.hpp>
#include <pallas/expr/broadcast.hpp>
#include <pallas/expr/block.hpp>
#include <pallas/block_view.hpp>
#include <pallas/expr/elementwise.hpp>
#include <pallas/expr/astype.hpp>
#include <pallas/expr/creation.hpp>
#include <pallas/expr/reduction.hpp>
#include <pallas/expr/shape_ops.hpp>
#include <pallas/expr/load_store.hpp>
#include <pallas/expr/dot_options.hpp>
#include <pallas/dot.hpp>
#include <pallas/integer_helpers.hpp>
#include <pallas/fixed_string.hpp>
#include <pallas/when.hpp>
#include <pallas/program_id.hpp>
#include <pallas/kernel.hpp>
#include <pallas/name.hpp>
#include <pallas/tpu/chip.hpp>
#include <pallas/cost_estimate.hpp>
#include <pallas/tpu/cost_report.hpp>
#include <pallas/tpu/mesh.hpp>
#include <pallas/tpu/scratch.hpp>
#include <pallas/tpu/semaphore.hpp>
#include <pallas/tpu/sync_copy.hpp>
#include <pallas/tpu/async_copy.hpp>
#include <pallas/tpu/device_mesh.hpp>
#include <pallas/tpu/shard_map.hpp>
#include <pallas/tpu/remote_copy.hpp>
#include <pallas/tpu/dma_schedule.hpp>
#include <pallas/tpu/dma_executor.hpp>
#include <pallas/tpu/interpret_params.hpp>
#include <pallas/tpu/races.hpp>
#include <pallas/tpu/core_barrier.hpp>
#include <pallas/tpu/masked_load_store.hpp>
#include <pallas/tpu/bitcast.hpp>
#include <pallas/tpu/repeat.hpp>
#include <pallas/tpu/prng.hpp>
#include <pallas/debug_print.hpp>
#include <pallas/run_scoped.hpp>
#include <pallas/grid.hpp>
#include <pallas/block_spec.hpp>
#include <pallas/tpu/dimension_semantics.hpp>
#include <pallas/tpu/tiling.hpp>
#include <pallas/plan.hpp>
#include <pallas/tpu/pipeline.hpp>
#include <pallas/trace.hpp>
#include <pallas/npy.hpp>
#include <pallas/tpu/compiler_params.hpp>
#include <pallas/input_output_aliases.hpp>
#include <pallas/pallas_call.hpp>
