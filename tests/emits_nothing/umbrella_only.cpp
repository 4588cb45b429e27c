// SPDX-License-Identifier: Apache-2.0
// A translation unit that includes the library and uses none of it: it must compile to no
// code of the library's own (lint.header_only_emits_nothing). A header-only runtime class
// whose out-of-line virtual function is declared without PALLAS_DECL has a key function,
// so every such TU emitted its vtable and, through it, the runtime behind it (0.8 s of g++
// -O2 per TU).
#include <pallas/pallas.hpp>

int main() {}
