// The C++ half of npy.numpy_roundtrip (driven by numpy_roundtrip.py):
//   numpy_roundtrip write DIR   saves value<T>(k, 0) for every dtype and shape as
//                               DIR/<dtype>_<shape>.npy
//   numpy_roundtrip read DIR    loads DIR/<dtype>_<shape>.back.npy, which numpy wrote with
//                               value<T>(k, 1) in assorted formats, and checks every element
// Exits 1 naming each element that differs.
#include <pallas/pallas.hpp>

#include "npy_values.hpp"

#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>
#include <string_view>

namespace pl = pallas;
namespace fs = std::filesystem;

namespace {

int failures = 0;

template <pl::index_t>
inline constexpr pl::index_t as_dyn = pl::dyn;

template <class T, pl::index_t... Dims>
void one(bool write, fs::path const& dir, int& index) {
  std::string name(pl::dtype_traits<T>::name);
  name += sizeof...(Dims) == 0 ? std::string("_scalar") : std::string("_");
  bool first = true;
  ((name += (first ? "" : "x") + std::to_string(Dims), first = false), ...);
  bool const static_extents = index++ % 2 == 0;
  if (write) {
    pl::Array<T, Dims...> a(pl::uninitialized);
    for (pl::index_t k = 0; k < a.size(); ++k) a.data()[k] = npy_test::value<T>(k, 0);
    pl::save_npy(dir / (name + ".npy"), a);
    return;
  }
  // Alternate static and run-time extents.
  auto const check = [&](auto const& b) {
    for (pl::index_t k = 0; k < b.size(); ++k) {
      std::uint32_t const got = npy_test::bits_of(b.data()[k]);
      std::uint32_t const want = npy_test::bits_of(npy_test::value<T>(k, 1));
      if (got != want) {
        std::fprintf(stderr,
                     "numpy_roundtrip: %s.back.npy element %lld: bits 0x%x, expected 0x%x\n",
                     name.c_str(), static_cast<long long>(k), got, want);
        ++failures;
      }
    }
  };
  fs::path const back = dir / (name + ".back.npy");
  if (static_extents)
    check(pl::load_npy<T, Dims...>(back));
  else
    check(pl::load_npy<T, as_dyn<Dims>...>(back));
}

template <class T>
void all_shapes(bool write, fs::path const& dir, int& index) {
  one<T>(write, dir, index);
  one<T, 1>(write, dir, index);
  one<T, 5>(write, dir, index);
  one<T, 1, 1>(write, dir, index);
  one<T, 3, 1>(write, dir, index);
  one<T, 1, 4>(write, dir, index);
  one<T, 2, 3>(write, dir, index);
  one<T, 1, 1, 1>(write, dir, index);
  one<T, 2, 1, 3>(write, dir, index);
  one<T, 2, 3, 4>(write, dir, index);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 || (std::string_view(argv[1]) != "write" && std::string_view(argv[1]) != "read")) {
    std::fprintf(stderr, "usage: numpy_roundtrip write|read DIR\n");
    return 2;
  }
  bool const write = std::string_view(argv[1]) == "write";
  fs::path const dir = argv[2];
  try {
    int index = 0;
    all_shapes<float>(write, dir, index);
    all_shapes<pl::bfloat16>(write, dir, index);
    all_shapes<pl::float16>(write, dir, index);
    all_shapes<std::int8_t>(write, dir, index);
    all_shapes<std::int16_t>(write, dir, index);
    all_shapes<std::int32_t>(write, dir, index);
    all_shapes<std::uint32_t>(write, dir, index);
    all_shapes<bool>(write, dir, index);
    std::printf("numpy_roundtrip %s: %d arrays, %d wrong elements\n", argv[1], index, failures);
  } catch (std::exception const& e) {
    std::fprintf(stderr, "numpy_roundtrip: %s\n", e.what());
    return 1;
  }
  return failures == 0 ? 0 : 1;
}
