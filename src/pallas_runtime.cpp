// SPDX-License-Identifier: Apache-2.0
// pallas::runtime: the runtime compiled once for every target that links it (separate
// compilation, include/pallas/config.hpp).
#include <pallas/runtime_source.hpp>
