// SPDX-License-Identifier: Apache-2.0
#pragma once
// The OpenBLAS reference of the dot and matmul goals. BLIS (pallas::pallas's matrix unit)
// exports the same BLAS and CBLAS symbols, so which library's cblas_sgemm a benchmark runs
// depends on the link order (benchmarks/CMakeLists.txt puts OpenBLAS first). A reference
// that silently ran on BLIS would make every ratio meaningless: this check stops the
// program instead.

#include <cblas.h>  // OpenBLAS's or, where blis.h came first (same include guard), BLIS's
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

// OpenBLAS's own, declared here: BLIS's cblas.h, if it is the one included, lacks it.
extern "C" void openblas_set_num_threads(int);

namespace pallas_bench {

/// Exits with a message unless cblas_sgemm is OpenBLAS's; then sets its thread count.
inline void use_openblas_reference(int threads) {
  Dl_info info{};
  void* const sgemm = reinterpret_cast<void*>(&cblas_sgemm);
  if (dladdr(sgemm, &info) == 0 || info.dli_fname == nullptr || std::strstr(info.dli_fname, "openblas") == nullptr) {
    std::fprintf(stderr, "pallas_bench: cblas_sgemm comes from %s, not OpenBLAS: link OpenBLAS before BLIS\n",
                 info.dli_fname != nullptr ? info.dli_fname : "an unknown library");
    std::exit(1);
  }
  openblas_set_num_threads(threads);
}

}  // namespace pallas_bench
