// expect-error: pallas::device_mesh: every axis needs at least one chip
// A mesh axis of 0 chips. The positive twin has 2.
#include <pallas/pallas.hpp>

namespace pl = pallas;

#ifdef PALLAS_COMPILE_FAIL
using mesh = pl::device_mesh<"x", 2, "y", 0>;
#else
using mesh = pl::device_mesh<"x", 2, "y", 2>;
#endif

int main() { return mesh::num_chips == 4 ? 0 : 1; }
