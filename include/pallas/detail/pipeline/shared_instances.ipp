// SPDX-License-Identifier: Apache-2.0
#pragma once
// The pipeline engine's shared shapes (shared_instances.hpp), compiled in the runtime's
// translation unit under separate compilation (header-only builds compile what they use).

#include <pallas/detail/pipeline/shared_instances.hpp>

#if defined(PALLAS_SEPARATE_COMPILATION)
namespace pallas::detail {
#define PALLAS_DEFINE_PIPELINE_SHAPE(R, N) PALLAS_PIPELINE_SHAPE_INSTANCES(template, R, N)
PALLAS_SHARED_PIPELINE_SHAPES(PALLAS_DEFINE_PIPELINE_SHAPE)
#undef PALLAS_DEFINE_PIPELINE_SHAPE
}  // namespace pallas::detail
#endif
