// SPDX-License-Identifier: Apache-2.0
#pragma once
// The words of the whole-grid rules, once: the static_asserts (static_rules.hpp, the front
// ends) and the run-time errors (rules.hpp, engine.hpp) say the same phrase. Macros, not
// constants: a static_assert's message must be a string literal in C++20, and adjacent
// literals concatenate ("pallas::" PALLAS_RULE_REVISIT).

/// A block index outside its array (a padded or bounded dimension: outside what it allows).
#define PALLAS_RULE_BLOCK_OUT_OF_RANGE "an index map returns a block outside its array"
/// An output block visited again after the core wrote another one.
#define PALLAS_RULE_OUTPUT_REVISIT "an output block is revisited after another block"
/// How to write a revisited output legally.
#define PALLAS_RULE_OUTPUT_REVISIT_FIX "visit it on consecutive steps or use pl::Buffered<1, pl::RevisitMode::ANY>"
/// Two cores writing one output block.
#define PALLAS_RULE_TWO_CORES_ONE_BLOCK "two cores write the same output block"
/// The core split: several cores and nothing to split.
#define PALLAS_RULE_NO_PARALLEL_AXIS "several cores share the grid but no axis is PARALLEL"
/// The core split of pallas_call: it splits the leading PARALLEL axes.
#define PALLAS_RULE_PARALLEL_FIRST "PARALLEL axes must come before ARBITRARY ones"
