// expect-error: pallas::device_mesh: axis names must be non-empty and distinct
// Two mesh axes with one name. The positive twin names them 'x' and 'y'.
#include <pallas/pallas.hpp>

namespace pl = pallas;

#ifdef PALLAS_COMPILE_FAIL
using mesh = pl::device_mesh<"x", 2, "x", 2>;
#else
using mesh = pl::device_mesh<"x", 2, "y", 2>;
#endif

int main() { return mesh::num_axes == 2 ? 0 : 1; }
