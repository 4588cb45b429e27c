// pl::save_npy / pl::load_npy. References: the bytes numpy (and ml_dtypes, for bfloat16)
// wrote for the same arrays (npy_numpy_bytes.inc), hand-written values, and round trips
// compared bit for bit over every dtype and shapes of rank 0 to 3 with size-1 and size-0
// dimensions. tests/npy/ checks the same against a live numpy.
#include <pallas/pallas.hpp>

#include <catch2/catch.hpp>

#include "../npy/npy_values.hpp"
#include "../support/error_of.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

namespace pl = pallas;
namespace fs = std::filesystem;

namespace {

#include "npy_numpy_bytes.inc"

std::string from_hex(std::string_view hex) {
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    out += static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16));
  return out;
}

/// A fresh directory under the system's temporary one, removed at the end.
struct scratch_dir {
  fs::path path;
  scratch_dir() {
    static std::atomic<int> counter{0};
    auto const stamp = std::chrono::steady_clock::now().time_since_epoch().count();
    path =
        fs::temp_directory_path() / ("pallas_npy_test_" + std::to_string(std::random_device{}()) +
                                     "_" + std::to_string(stamp) + "_" + std::to_string(counter++));
    fs::create_directories(path);
  }
  ~scratch_dir() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
  scratch_dir(scratch_dir const&) = delete;
  scratch_dir& operator=(scratch_dir const&) = delete;
  fs::path operator/(std::string const& name) const { return path / name; }
};

std::string read_file(fs::path const& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
fs::path write_file(fs::path const& p, std::string const& bytes) {
  std::ofstream(p, std::ios::binary)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return p;
}

/// A version-1.0 file with this header text (padded as numpy pads) and data.
std::string npy_file(std::string const& dict, std::string const& data) {
  std::size_t const pad = 64 - (10 + dict.size() + 1) % 64;
  std::size_t const len = dict.size() + pad + 1;
  std::string out = std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(len & 0xFF) +
                    static_cast<char>(len >> 8);
  return out + dict + std::string(pad, ' ') + "\n" + data;
}

using pallas_test::error_of;

template <pl::index_t>
inline constexpr pl::index_t as_dyn = pl::dyn;

// Saves the test values in Array<T, Dims...>, checks the file's layout, and loads it back
// with static and with run-time extents.
template <class T, pl::index_t... Dims>
void round_trip(scratch_dir const& dir) {
  pl::Array<T, Dims...> a(pl::uninitialized);
  for (pl::index_t k = 0; k < a.size(); ++k) a.data()[k] = npy_test::value<T>(k, 0);
  std::string const name =
      "a" + ((std::string("_") + std::to_string(Dims)) + ... + std::string()) + ".npy";
  fs::path const file = dir / name;
  pl::save_npy(file, a);
  INFO(file.string());

  auto const bytes = static_cast<pl::index_t>(fs::file_size(file));
  pl::index_t const data = a.size() * static_cast<pl::index_t>(sizeof(T));
  CHECK((bytes - data) % 64 == 0);  // the preamble is padded to 64 bytes
  CHECK(bytes - data >= 64);

  auto const check = [&](auto const& b) {
    REQUIRE(b.shape().all() == a.shape().all());
    for (pl::index_t k = 0; k < a.size(); ++k) {
      INFO("element " << k);
      CHECK(npy_test::bits_of(b.data()[k]) == npy_test::bits_of(npy_test::value<T>(k, 0)));
    }
  };
  check(pl::load_npy<T, Dims...>(file));
  check(pl::load_npy<T, as_dyn<Dims>...>(file));
}

template <class T>
void round_trip_all_shapes() {
  scratch_dir const dir;
  round_trip<T>(dir);
  round_trip<T, 1>(dir);
  round_trip<T, 7>(dir);
  round_trip<T, 0>(dir);
  round_trip<T, 1, 1>(dir);
  round_trip<T, 3, 1>(dir);
  round_trip<T, 1, 4>(dir);
  round_trip<T, 2, 3>(dir);
  round_trip<T, 1, 1, 1>(dir);
  round_trip<T, 2, 1, 3>(dir);
  round_trip<T, 1, 3, 1>(dir);
  round_trip<T, 2, 3, 4>(dir);
  round_trip<T, 2, 0, 3>(dir);
}

}  // namespace

TEMPLATE_TEST_CASE(
    "npy: every dtype, ranks 0 to 3 with size-1 and size-0 dims, round-trips bit for bit", "[npy]",
    float, pl::bfloat16, pl::float16, std::int8_t, std::int16_t, std::int32_t, std::uint32_t,
    bool) {
  round_trip_all_shapes<TestType>();
}

TEST_CASE("npy: save_npy writes exactly what np.save writes", "[npy]") {
  scratch_dir const dir;
  pl::save_npy(dir / "f.npy", pl::Array<float, 2, 3>{-1.0f, -0.5f, 0.0f, 0.5f, 1.0f, 1.5f});
  CHECK(read_file(dir / "f.npy") == from_hex(f4_2x3));

  pl::save_npy(dir / "s.npy", pl::Array<std::int32_t>{-7});
  CHECK(read_file(dir / "s.npy") == from_hex(i4_scalar));

  pl::save_npy(dir / "u.npy", pl::Array<std::uint32_t, pl::dyn, 0>(123456789012));
  CHECK(read_file(dir / "u.npy") == from_hex(u4_long_first_axis));

  pl::save_npy(dir / "b.npy", pl::Array<bool, 3>{true, false, true});
  CHECK(read_file(dir / "b.npy") == from_hex(b1));

  // bfloat16 as ml_dtypes has numpy write it: descr '<V2'.
  pl::save_npy(dir / "bf.npy", pl::Array<pl::bfloat16, 3>{pl::bfloat16(1.0f), pl::bfloat16(-2.5f),
                                                          pl::bfloat16(3.0f)});
  CHECK(read_file(dir / "bf.npy") == from_hex(bf16_ml_dtypes));
  pl::save_npy(dir / "bf2.npy",
               pl::Array<pl::bfloat16, 2, 1>{pl::bfloat16(1.0f), pl::bfloat16(0.5f)});
  CHECK(read_file(dir / "bf2.npy") == from_hex(bf16_ml_dtypes_2x1));
}

TEST_CASE("npy: load_npy reads numpy's files: versions 1-3, both byte orders, Fortran order",
          "[npy]") {
  scratch_dir const dir;
  auto const file = [&](char const* hex) {
    static int n = 0;
    return write_file(dir / ("f" + std::to_string(n++) + ".npy"), from_hex(hex));
  };

  CHECK(pl::load_npy<float, 2, 3>(file(f4_2x3)) ==
        pl::Array<float, 2, 3>{-1.0f, -0.5f, 0.0f, 0.5f, 1.0f, 1.5f});
  CHECK(pl::load_npy<std::int32_t>(file(i4_scalar))() == -7);
  CHECK(pl::load_npy<std::uint32_t, pl::dyn, 0>(file(u4_long_first_axis)).extent(0) ==
        123456789012);
  CHECK(pl::load_npy<std::int16_t, 3>(file(i2_v2)) == pl::Array<std::int16_t, 3>{1, -2, 300});
  CHECK(pl::load_npy<std::int16_t, 3>(file(i2_v3)) == pl::Array<std::int16_t, 3>{1, -2, 300});
  CHECK(pl::load_npy<float, 2>(file(be_f4)) == pl::Array<float, 2>{1.5f, -2.0f});
  CHECK(pl::load_npy<std::int16_t, 2, 2>(file(be_i2)) ==
        pl::Array<std::int16_t, 2, 2>{1, -2, 3, 4});
  CHECK(pl::load_npy<bool, 3>(file(b1)) == pl::Array<bool, 3>{true, false, true});

  // np.asfortranarray(np.arange(...)): the elements come back in C order.
  auto const f2 = pl::load_npy<std::int32_t, 2, pl::dyn>(file(fortran_i4));
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) CHECK(f2(i, j) == 3 * i + j);
  auto const f3 = pl::load_npy<std::uint32_t, 2, 3, 4>(file(fortran_u4_3d));
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k)
        CHECK(f3(i, j, k) == static_cast<std::uint32_t>(12 * i + 4 * j + k));

  // bfloat16 1, -2.5, 3: ml_dtypes' '<V2', numpy's void '|V2', and the bits as '<u2'.
  pl::Array<float, 3> const expected{1.0f, -2.5f, 3.0f};
  for (char const* hex : {bf16_ml_dtypes, bf16_void, bf16_u2}) {
    auto const b = pl::load_npy<pl::bfloat16, 3>(file(hex));
    for (int k = 0; k < 3; ++k) CHECK(static_cast<float>(b(k)) == expected(k));
  }
  auto const b2 = pl::load_npy<pl::bfloat16, pl::dyn, 1>(file(bf16_ml_dtypes_2x1));
  CHECK(static_cast<float>(b2(0, 0)) == 1.0f);
  CHECK(static_cast<float>(b2(1, 0)) == 0.5f);
}

TEST_CASE("npy: a file of another dtype is an io_error naming the file and both dtypes", "[npy]") {
  scratch_dir const dir;
  fs::path const f8_file = write_file(dir / "doubles.npy", from_hex(f8));
  std::string msg = error_of<pl::io_error>([&] { (void)pl::load_npy<float, 1>(f8_file); });
  CHECK_THAT(msg, Catch::Contains("pallas::load_npy: '" + f8_file.string() + "'"));
  CHECK_THAT(msg, Catch::Contains("holds dtype '<f8' (float64)"));
  CHECK_THAT(msg, Catch::Contains("pl::load_npy<float> reads '<f4' (float32)"));
  CHECK_THAT(msg, Catch::Contains("a.astype(np.float32)"));

  fs::path const f4_file = write_file(dir / "floats.npy", from_hex(f4_2x3));
  msg = error_of<pl::io_error>([&] { (void)pl::load_npy<pl::bfloat16, 2, 3>(f4_file); });
  CHECK_THAT(msg, Catch::Contains("'<f4' (float32)"));
  CHECK_THAT(
      msg, Catch::Contains(
               "pl::load_npy<pl::bfloat16> reads '<V2' (ml_dtypes' bfloat16) or '<u2' (its bits)"));
  msg = error_of<pl::io_error>([&] { (void)pl::load_npy<std::int32_t, 2, 3>(f4_file); });
  CHECK_THAT(msg, Catch::Contains("pl::load_npy<std::int32_t> reads '<i4' (int32)"));

  // Same item size, other kind: never reinterpreted.
  fs::path const bool_file = write_file(dir / "bools.npy", from_hex(b1));
  CHECK_THAT(error_of<pl::io_error>([&] { (void)pl::load_npy<std::int8_t, 3>(bool_file); }),
             Catch::Contains("holds dtype '|b1' (bool)"));
  fs::path const void_file = write_file(dir / "void.npy", from_hex(bf16_ml_dtypes));
  CHECK_THAT(error_of<pl::io_error>([&] { (void)pl::load_npy<pl::float16, 3>(void_file); }),
             Catch::Contains("holds dtype '<V2' (void16: ml_dtypes' bfloat16), but "
                             "pl::load_npy<pl::float16> reads '<f2'"));
  fs::path const u2_file = write_file(dir / "u2.npy", from_hex(bf16_u2));
  CHECK_THAT(error_of<pl::io_error>([&] { (void)pl::load_npy<pl::float16, 3>(u2_file); }),
             Catch::Contains("holds dtype '<u2' (uint16)"));
  CHECK_THAT(error_of<pl::io_error>([&] { (void)pl::load_npy<std::int16_t, 3>(u2_file); }),
             Catch::Contains("holds dtype '<u2' (uint16)"));

  fs::path const unicode = write_file(
      dir / "unicode.npy",
      npy_file("{'descr': '<U8', 'fortran_order': False, 'shape': (1,), }", std::string(32, 'a')));
  CHECK_THAT(
      error_of<pl::io_error>([&] { (void)pl::load_npy<float, 1>(unicode); }),
      Catch::Contains("dtype '<U8' is not one pallas reads; pl::load_npy<float> reads '<f4'"));
}

TEST_CASE("npy: a file of another shape is an io_error naming both shapes", "[npy]") {
  scratch_dir const dir;
  fs::path const file = write_file(dir / "f.npy", from_hex(f4_2x3));
  CHECK_THAT(
      error_of<pl::io_error>([&] { (void)pl::load_npy<float, 3, 2>(file); }),
      Catch::Contains("'" + file.string() +
                      "': holds shape (2, 3), but pl::load_npy<float, 3, 2> expects (3, 2)"));
  CHECK_THAT(
      error_of<pl::io_error>([&] { (void)pl::load_npy<float, pl::dyn, 2>(file); }),
      Catch::Contains("holds shape (2, 3), but pl::load_npy<float, pl::dyn, 2> expects (dyn, 2)"));
  CHECK_THAT(error_of<pl::io_error>([&] { (void)pl::load_npy<float, pl::dyn>(file); }),
             Catch::Contains("expects (dyn,)"));
  CHECK_THAT(error_of<pl::io_error>([&] { (void)pl::load_npy<float, 2, 3, 1>(file); }),
             Catch::Contains("expects (2, 3, 1)"));
  CHECK_THAT(error_of<pl::io_error>([&] { (void)pl::load_npy<float>(file); }), Catch::Contains("expects ()"));
  CHECK(pl::load_npy<float, 2, pl::dyn>(file).extent(1) == 3);
}

TEST_CASE("npy: files that are not valid .npy files are io_errors", "[npy]") {
  scratch_dir const dir;
  std::string const good = from_hex(f4_2x3);
  auto const load = [&](std::string const& bytes) {
    static int n = 0;
    fs::path const p = write_file(dir / ("bad" + std::to_string(n++) + ".npy"), bytes);
    return error_of<pl::io_error>([&] { (void)pl::load_npy<float, 2, 3>(p); });
  };
  CHECK_THAT(error_of<pl::io_error>([&] { (void)pl::load_npy<float, 2, 3>(dir / "missing.npy"); }),
             Catch::Contains("missing.npy': cannot open for reading"));
  fs::create_directory(dir / "a_directory.npy");  // opens on Linux, but holds no bytes to read
  CHECK_THAT(error_of<pl::io_error>([&] { (void)pl::load_npy<float, 2, 3>(dir / "a_directory.npy"); }),
             Catch::Contains("a_directory.npy'"));
  CHECK_THAT(load(""), Catch::Contains("not a .npy file"));
  CHECK_THAT(load("x,y\n1,2\n3,4\n"), Catch::Contains("not a .npy file"));
  CHECK_THAT(load(good.substr(0, 9)),
             Catch::Contains("truncated: the file ends inside the header length"));
  CHECK_THAT(load(good.substr(0, 40)),
             Catch::Contains("the header claims 118 bytes, the file has 40"));
  CHECK_THAT(load(good.substr(0, good.size() - 1)),
             Catch::Contains(
                 "holds 23 bytes of data after its header, but shape (2, 3) of '<f4' needs 24"));
  CHECK_THAT(load(good + "x"), Catch::Contains("holds 25 bytes of data"));
  CHECK_THAT(load(good.substr(0, 128)),
             Catch::Contains(
                 "holds 0 bytes of data after its header, but shape (2, 3) of '<f4' needs 24"));

  std::string v4 = good;
  v4[6] = '\x04';
  CHECK_THAT(load(v4),
             Catch::Contains("format version 4.0 is not one pallas reads (1.0, 2.0, 3.0)"));
  std::string huge = good;
  huge[8] = '\xFF';
  huge[9] = '\xFF';
  CHECK_THAT(load(huge), Catch::Contains("truncated or corrupt: the header claims 65535 bytes"));

  std::string const data(24, '\0');
  CHECK_THAT(load(npy_file("{'descr': '<f4', 'fortran_order': False, 'shapf': (2, 3), }", data)),
             Catch::Contains("malformed header: unexpected key 'shapf'"));
  CHECK_THAT(load(npy_file("{'descr': '<f4', 'shape': (2, 3), }", data)),
             Catch::Contains("lacks one of 'descr', 'fortran_order', 'shape'"));
  CHECK_THAT(
      load(npy_file("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
                    data)),
      Catch::Contains("'descr' appears twice"));
  CHECK_THAT(
      load(npy_file("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2, 3), }", data)),
      Catch::Contains("structured dtypes are not supported"));
  CHECK_THAT(load(npy_file("{'descr': '<f4', 'fortran_order': 0, 'shape': (2, 3), }", data)),
             Catch::Contains("neither True nor False"));
  CHECK_THAT(load(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3), }", data)),
             Catch::Contains("integers >= 0"));
  CHECK_THAT(load(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (2 3), }", data)),
             Catch::Contains("expected ',' or ')' in 'shape'"));
  CHECK_THAT(load(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } x", data)),
             Catch::Contains("unexpected text after the header's closing '}'"));
  CHECK_THAT(load(npy_file("{'descr': '<f4, 'fortran_order': False, 'shape': (2, 3), }", data)),
             Catch::Contains("malformed header"));
  fs::path const overflow = write_file(
      dir / "overflow.npy",
      npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999, 99999999999), }",
               data));
  CHECK_THAT(error_of<pl::io_error>([&] { (void)pl::load_npy<float, pl::dyn, pl::dyn>(overflow); }),
             Catch::Contains("holds 24 bytes of data after its header, but shape (99999999999, "
                             "99999999999) of '<f4' needs more than 2^62"));

  // Any key order, double quotes, no trailing comma and no spaces are Python literals too.
  fs::path const odd = write_file(
      dir / "odd.npy",
      npy_file("{\"shape\":(2,3),\"fortran_order\":False,\"descr\":\"<f4\"}", good.substr(128)));
  CHECK(pl::load_npy<float, 2, 3>(odd) ==
        pl::Array<float, 2, 3>{-1.0f, -0.5f, 0.0f, 0.5f, 1.0f, 1.5f});
}

TEST_CASE("npy: save_npy to a path it cannot write is an io_error naming it", "[npy]") {
  scratch_dir const dir;
  fs::path const p = dir / "no_such_dir" / "a.npy";
  std::string const msg = error_of<pl::io_error>([&] { pl::save_npy(p, pl::Array<float, 2>{1.0f, 2.0f}); });
  CHECK_THAT(msg,
             Catch::Contains("pallas::save_npy: '" + p.string() + "': cannot open for writing"));
}

TEST_CASE("npy: a path may be a std::filesystem::path, a std::string, a string_view or a literal", "[npy]") {
  scratch_dir const dir;
  pl::Array<std::int32_t, 2, 2> const a{1, -2, 3, -4};
  std::string const name = (dir / "named.npy").string();
  pl::save_npy(name, a);                                  // std::string
  CHECK(pl::load_npy<std::int32_t, 2, 2>(name.c_str()) == a);         // char const*
  CHECK(pl::load_npy<std::int32_t, 2, 2>(std::string_view(name)) == a);  // std::string_view
  CHECK(pl::load_npy<std::int32_t, pl::dyn, 2>(fs::path(name)).shape().extent(0) == 2);
}
