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
