// expect-error: pallas::npy: the element type must be a pallas dtype
// load_npy / save_npy of an Array whose elements are not a pallas dtype (double: .npy
// can hold it, the library computes on none of it). The positive twin uses float.
#include <pallas/pallas.hpp>

#include <filesystem>

namespace pl = pallas;

#ifdef PALLAS_COMPILE_FAIL
using element = double;
#else
using element = float;
#endif

int main() {
  auto const path = std::filesystem::temp_directory_path() / "pallas_compile_fail_npy.npy";
  pl::save_npy(path, pl::Array<element, 2>{1, 2});
  auto const back = pl::load_npy<element, 2>(path);
  std::filesystem::remove(path);
  return back(1) == 2 ? 0 : 1;
}
