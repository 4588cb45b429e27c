#pragma once
// pallas-cpp: the JAX Pallas TPU kernel model as a header-only C++20 library.
//
//   #include <pallas/pallas.hpp>
//   namespace pl = pallas;
//   namespace pltpu = pallas::tpu;

#include <pallas/config.hpp>
#include <pallas/error.hpp>
#include <pallas/shape.hpp>
#include <pallas/memory_space.hpp>
#include <pallas/slice.hpp>
#include <pallas/ref.hpp>
#include <pallas/array.hpp>
#include <pallas/shape_dtype_struct.hpp>
#include <pallas/dtype.hpp>
#include <pallas/expr/expression.hpp>
#include <pallas/expr/ops.hpp>
#include <pallas/expr/assign.hpp>
#include <pallas/expr/block.hpp>
#include <pallas/block_view.hpp>
#include <pallas/expr/elementwise.hpp>
#include <pallas/expr/astype.hpp>
#include <pallas/expr/creation.hpp>
#include <pallas/expr/reduction.hpp>
#include <pallas/expr/shape_ops.hpp>
#include <pallas/expr/load_store.hpp>
#include <pallas/dot.hpp>
#include <pallas/fixed_string.hpp>
#include <pallas/when.hpp>
#include <pallas/program_id.hpp>
#include <pallas/kernel.hpp>
#include <pallas/tpu/chip.hpp>
#include <pallas/tpu/mesh.hpp>
#include <pallas/tpu/device.hpp>
#include <pallas/tpu/scratch.hpp>
#include <pallas/tpu/semaphore.hpp>
#include <pallas/tpu/sync_copy.hpp>
#include <pallas/tpu/async_copy.hpp>
#include <pallas/tpu/dma_schedule.hpp>
#include <pallas/tpu/core_barrier.hpp>
#include <pallas/run_scoped.hpp>
#include <pallas/grid.hpp>
#include <pallas/block_spec.hpp>
#include <pallas/tpu/dimension_semantics.hpp>
#include <pallas/tpu/core_split.hpp>
#include <pallas/tpu/pipeline.hpp>
#include <pallas/trace.hpp>
#include <pallas/pallas_call.hpp>
