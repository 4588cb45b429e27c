// SPDX-License-Identifier: Apache-2.0
#pragma once
// The runtime's definitions, for the one translation unit that compiles them under
// separate compilation (PALLAS_SEPARATE_COMPILATION, config.hpp). A program has one .cpp
// file that holds only
//
//   #include <pallas/runtime_source.hpp>
//
// built with the same PALLAS_* settings as its kernels (CMake: link pallas::runtime, which
// is that file). Kernel translation units include <pallas/pallas.hpp> as always.

#if !defined(PALLAS_SEPARATE_COMPILATION)
#  error "pallas/runtime_source.hpp: define PALLAS_SEPARATE_COMPILATION for every translation unit of the program (without it, every one already defines the runtime inline)"
#endif

#define PALLAS_RUNTIME_SOURCE 1
#include <pallas/pallas.hpp>
