// Compiled with only single_include/ on the include path: the generated header is
// complete on its own.
#include <pallas/pallas.hpp>

#include <cstdio>

namespace pl = pallas;

static_assert(pl::shape<2, 3>::static_size() == 6);

int main() {
  pl::shape<pl::dyn, 3> const s(5);
  if (s.size() != 15 || s.extent(0) != 5 || s.extent(1) != 3) {
    std::fprintf(stderr, "single_include: wrong shape arithmetic\n");
    return 1;
  }
  std::puts("single_include: ok");
  return 0;
}
