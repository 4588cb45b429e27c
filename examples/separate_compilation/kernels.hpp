// The kernels of this example, declared for main.cpp: each is defined in its own
// translation unit (kernels.cpp), as a project with many kernels would split them.
#pragma once

#include <pallas/pallas.hpp>

namespace example {

using matrix = pallas::Array<float, 256, 256>;

/// x @ y on a (2, 2, 2) grid of (128, 128) blocks, accumulated in VMEM scratch.
matrix matmul(matrix const& x, matrix const& y);

}  // namespace example
