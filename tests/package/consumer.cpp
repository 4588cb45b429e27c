// The program of the package consumer projects (find_package, add_subdirectory,
// FetchContent): includes the umbrella header and checks a result.
#include <pallas/pallas.hpp>

#include <cstdio>

namespace pl = pallas;

int main() {
  pl::shape<pl::dyn, 128> const s(8);
  if (s.size() != 8 * 128) {
    std::fprintf(stderr, "consumer: expected %d elements, got %lld\n", 8 * 128,
                 static_cast<long long>(s.size()));
    return 1;
  }
  std::puts("consumer: ok");
  return 0;
}
