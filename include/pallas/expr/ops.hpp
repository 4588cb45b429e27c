// SPDX-License-Identifier: Apache-2.0
#pragma once
// The element-level semantics of block operations, as jnp computes them on CPU:
// - bfloat16 and float16 compute in float and round back to nearest even after every
//   operation (as jnp does for each op);
// - integer +, -, *, negation, abs, shifts wrap like jnp's int32 (computed in uint32, so
//   there is no undefined behaviour);
// - integer `/` is jnp's `//` (floor division) and `%` is jnp's `%` (the sign of the
//   divisor); by zero they follow XLA (x / 0 = -1 before the floor step, x % 0 = x);
// - maximum/minimum propagate NaN; comparisons with NaN are false (!= is true).
//
// Each op is a struct with `input_t<T>` (the dtype its operands are converted to, given
// their promoted dtype T), `result_t<T>` and `apply(...)`.
//
// The ops live in binary_ops.hpp and unary_ops.hpp (helpers: op_helpers.hpp).

#include <pallas/expr/binary_ops.hpp>
#include <pallas/expr/unary_ops.hpp>
