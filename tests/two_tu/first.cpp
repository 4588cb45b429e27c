// Two translation units that both include the whole library link into one program:
// everything in the headers is inline or a template (DESIGN.md §10).
#include <pallas/pallas.hpp>

#include <cstdio>

namespace pl = pallas;

pl::index_t size_from_second_tu();

int main() {
  pl::index_t const here = pl::shape<pl::dyn, 4>(3).size();
  pl::index_t const there = size_from_second_tu();
  if (here != 12 || there != 12) {
    std::fprintf(stderr, "two_tu: expected 12 and 12, got %lld and %lld\n",
                 static_cast<long long>(here), static_cast<long long>(there));
    return 1;
  }
  std::puts("two_tu: ok");
  return 0;
}
