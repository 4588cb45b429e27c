// SPDX-License-Identifier: Apache-2.0
#pragma once
// NumPy's .npy files, so that a ported kernel's inputs and outputs can be exchanged with
// (and compared against) the JAX original:
//
//   pl::save_npy("o.npy", o);                          np.save("o.npy", o)
//   auto x = pl::load_npy<float, 256, 128>("x.npy");   x = np.load("x.npy")
//   auto y = pl::load_npy<float, pl::dyn, 128>("y.npy");   (run-time extents from the file)
//
// Written: format 1.0, little-endian, C order, byte for byte what np.save writes. Read:
// formats 1.0, 2.0 and 3.0, either byte order, C or Fortran order (np.save(a.T) writes
// Fortran order). The dtype must be the Array's, never converted:
//
//   float '<f4'   pl::float16 '<f2'   std::int8_t '|i1'   std::int16_t '<i2'
//   std::int32_t '<i4'   std::uint32_t '<u4'   bool '|b1'
//   pl::bfloat16 '<V2': what np.save writes for an ml_dtypes.bfloat16 array (numpy stores
//                a user dtype by its dtype.str). np.load gives a 2-byte void array, and
//                `a.view(ml_dtypes.bfloat16)` the values. Read: '<V2' / '|V2', and '<u2'
//                as the bit patterns (`a.view(np.uint16)` saved from numpy).
//
// Every failure is a pallas::io_error naming the file and, for a mismatch, the dtype or
// shape found and the one expected.

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <concepts>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <vector>

#include <pallas/array.hpp>
#include <pallas/detail/npy_header.hpp>
#include <pallas/dtype.hpp>
#include <pallas/error.hpp>
#include <pallas/shape.hpp>

namespace pallas {

namespace detail::npy {

/// How each dtype is spelled in a .npy file: the descr written, and which are read.
template <class T>
struct codec;
template <>
struct codec<float> {
  static constexpr std::string_view cpp = "float";
  static constexpr std::string_view write = "<f4", expected = "'<f4' (float32)",
                                    numpy = "np.float32";
  static constexpr bool reads(descr const& d) { return d.kind == 'f' && d.itemsize == 4; }
};
template <>
struct codec<float16> {
  static constexpr std::string_view cpp = "pl::float16";
  static constexpr std::string_view write = "<f2", expected = "'<f2' (float16)",
                                    numpy = "np.float16";
  static constexpr bool reads(descr const& d) { return d.kind == 'f' && d.itemsize == 2; }
};
template <>
struct codec<bfloat16> {
  static constexpr std::string_view cpp = "pl::bfloat16";
  static constexpr std::string_view write = "<V2",
                                    expected = "'<V2' (ml_dtypes' bfloat16) or '<u2' (its bits)",
                                    numpy = "ml_dtypes.bfloat16";
  static constexpr bool reads(descr const& d) {
    return (d.kind == 'V' || d.kind == 'u') && d.itemsize == 2;
  }
};
template <>
struct codec<std::int8_t> {
  static constexpr std::string_view cpp = "std::int8_t";
  static constexpr std::string_view write = "|i1", expected = "'|i1' (int8)", numpy = "np.int8";
  static constexpr bool reads(descr const& d) { return d.kind == 'i' && d.itemsize == 1; }
};
template <>
struct codec<std::int16_t> {
  static constexpr std::string_view cpp = "std::int16_t";
  static constexpr std::string_view write = "<i2", expected = "'<i2' (int16)", numpy = "np.int16";
  static constexpr bool reads(descr const& d) { return d.kind == 'i' && d.itemsize == 2; }
};
template <>
struct codec<std::int32_t> {
  static constexpr std::string_view cpp = "std::int32_t";
  static constexpr std::string_view write = "<i4", expected = "'<i4' (int32)", numpy = "np.int32";
  static constexpr bool reads(descr const& d) { return d.kind == 'i' && d.itemsize == 4; }
};
template <>
struct codec<std::uint32_t> {
  static constexpr std::string_view cpp = "std::uint32_t";
  static constexpr std::string_view write = "<u4", expected = "'<u4' (uint32)", numpy = "np.uint32";
  static constexpr bool reads(descr const& d) { return d.kind == 'u' && d.itemsize == 4; }
};
template <>
struct codec<bool> {
  static constexpr std::string_view cpp = "bool";
  static constexpr std::string_view write = "|b1", expected = "'|b1' (bool)", numpy = "np.bool_";
  static constexpr bool reads(descr const& d) { return d.kind == 'b' && d.itemsize == 1; }
};

template <class T>
constexpr bool check_dtype() {
  static_assert(is_dtype_v<T>,
                "pallas::npy: the element type must be a pallas dtype (float, pl::bfloat16, "
                "pl::float16, std::int8_t, std::int16_t, std::int32_t, std::uint32_t, bool)");
  return is_dtype_v<T>;
}

// The unsigned integer with T's bytes (bool: one byte).
template <class T>
using bits_t = std::conditional_t<sizeof(T) == 1, std::uint8_t,
                                  std::conditional_t<sizeof(T) == 2, std::uint16_t, std::uint32_t>>;

/// One item of T from its bytes in the file's byte order. bool: any non-zero byte is true.
template <class T>
T decode(std::byte const* p, bool big_endian) noexcept {
  bits_t<T> u = 0;
  for (std::size_t b = 0; b < sizeof(T); ++b) {
    std::size_t const shift = 8 * (big_endian ? sizeof(T) - 1 - b : b);
    u = static_cast<bits_t<T>>(u |
                               static_cast<bits_t<T>>(std::to_integer<unsigned>(p[b]) << shift));
  }
  if constexpr (std::is_same_v<T, bool>)
    return u != 0;
  else
    return std::bit_cast<T>(u);
}

/// The bytes of one item, little-endian.
template <class T>
void encode_le(T v, std::byte* p) noexcept {
  bits_t<T> u;
  if constexpr (std::is_same_v<T, bool>)
    u = v ? 1 : 0;
  else
    u = std::bit_cast<bits_t<T>>(v);
  for (std::size_t b = 0; b < sizeof(T); ++b) p[b] = static_cast<std::byte>((u >> (8 * b)) & 0xFFu);
}

/// A shape as numpy prints it, `pl::dyn` as "dyn": "(3, dyn)", "(5,)", "()".
template <class Range>
std::string shape_string(Range const& extents) {
  std::string out = "(";
  std::size_t r = 0;
  for (index_t e : extents) {
    out += r++ ? ", " : "";
    out += e == dyn ? std::string("dyn") : std::to_string(e);
  }
  return out + (r == 1 ? ",)" : ")");
}

/// ", 3, pl::dyn" for the extents 3, dyn.
template <std::size_t N>
std::string template_arguments(std::array<index_t, N> const& extents) {
  std::string out;
  for (index_t e : extents) out += e == dyn ? std::string(", pl::dyn") : ", " + std::to_string(e);
  return out;
}

inline std::string quoted(std::string const& path) { return "'" + path + "'"; }

inline std::string errno_text(int code) { return std::generic_category().message(code); }

/// A file opened with std::fopen, closed when it goes (C stdio: the header then needs no
/// <fstream> or <filesystem>, which cost every translation unit a tenth of its parse).
class file {
 public:
  file(std::string const& path, char const* mode) noexcept : f_(std::fopen(path.c_str(), mode)) {}
  ~file() {
    if (f_) std::fclose(f_);
  }
  file(file const&) = delete;
  file& operator=(file const&) = delete;
  explicit operator bool() const noexcept { return f_ != nullptr; }

  /// Reads up to `n` bytes; how many it read.
  std::uint64_t read(void* to, std::uint64_t n) noexcept { return std::fread(to, 1, static_cast<std::size_t>(n), f_); }
  bool write(void const* from, std::uint64_t n) noexcept {
    return std::fwrite(from, 1, static_cast<std::size_t>(n), f_) == static_cast<std::size_t>(n);
  }
  /// The file's size in bytes, the position left at its start; -1 if unknown.
  std::int64_t size() noexcept {
    if (std::fseek(f_, 0, SEEK_END) != 0) return -1;
    long const end = std::ftell(f_);
    return std::fseek(f_, 0, SEEK_SET) == 0 ? end : -1;
  }
  /// Closes the file; false if writing what was buffered failed.
  bool close() noexcept {
    int const r = std::fclose(f_);
    f_ = nullptr;
    return r == 0;
  }

 private:
  std::FILE* f_;
};

}  // namespace detail::npy

/// A file name for pl::save_npy and pl::load_npy: a string, or a std::filesystem::path
/// (anything with a `.string()`), taken as the native name.
class npy_path {
 public:
  /// A file name as a C string.
  npy_path(char const* path) : text_(path) {}
  /// A file name as a std::string.
  npy_path(std::string path) : text_(std::move(path)) {}
  /// A file name as a std::string_view.
  npy_path(std::string_view path) : text_(path) {}
  /// A std::filesystem::path, or anything whose `.string()` is its native name.
  template <class Path>
    requires requires(Path const& p) {
      { p.string() } -> std::convertible_to<std::string>;
    }
  npy_path(Path const& path) : text_(path.string()) {}

  /// The file's native name.
  std::string const& string() const noexcept { return text_; }

 private:
  std::string text_;
};

/// Writes `array` to `path` as np.save would (format 1.0, little-endian, C order; bfloat16
/// as ml_dtypes' '<V2'), replacing the file. Throws pallas::io_error when it cannot.
template <class T, index_t... Dims>
void save_npy(npy_path const& path, Array<T, Dims...> const& array) {
  if constexpr (detail::npy::check_dtype<T>()) {
    using codec = detail::npy::codec<T>;
    std::string const where = "pallas::save_npy: " + detail::npy::quoted(path.string()) + ": ";
    auto const extents = array.shape().all();
    std::string const header = detail::npy::make_header(
        codec::write, std::vector<index_t>(extents.begin(), extents.end()));

    detail::npy::file out(path.string(), "wb");
    if (!out)
      detail::fail<io_error>(where, "cannot open for writing: ", detail::npy::errno_text(errno));
    bool written = out.write(header.data(), header.size());
    auto const n = static_cast<std::size_t>(array.size());
    if constexpr (std::endian::native == std::endian::little && !std::is_same_v<T, bool>) {
      written = written && out.write(array.data(), n * sizeof(T));
    } else {  // bool: one byte 0 / 1 whatever the platform's bool holds; big-endian hosts
      constexpr std::size_t chunk = 4096;
      std::vector<std::byte> bytes(chunk * sizeof(T));
      for (std::size_t k = 0; k < n; k += chunk) {
        std::size_t const m = n - k < chunk ? n - k : chunk;
        for (std::size_t j = 0; j < m; ++j)
          detail::npy::encode_le(array.data()[k + j], &bytes[j * sizeof(T)]);
        written = written && out.write(bytes.data(), m * sizeof(T));
      }
    }
    if (!out.close() || !written)
      detail::fail<io_error>(where, "writing failed: ", detail::npy::errno_text(errno));
  }
}

/// Reads a .npy file into a `pl::Array<T, Dims...>`. The file's dtype must be T's, its rank
/// sizeof...(Dims), and each static extent equal; `pl::dyn` extents are the file's.
/// Throws pallas::io_error naming the file and what was found and expected.
template <class T, index_t... Dims>
Array<T, Dims...> load_npy(npy_path const& path) {
  using array_type = Array<T, Dims...>;
  if constexpr (!detail::npy::check_dtype<T>()) {
    detail::fail<error>("pallas::load_npy: not a pallas dtype");  // reported above
  } else {
    namespace npy = detail::npy;
    using codec = npy::codec<T>;
    constexpr std::size_t rank = sizeof...(Dims);
    std::string const where = "pallas::load_npy: " + npy::quoted(path.string()) + ": ";

    npy::file in(path.string(), "rb");
    if (!in) detail::fail<io_error>(where, "cannot open for reading: ", npy::errno_text(errno));
    std::int64_t const size = in.size();
    if (size < 0) detail::fail<io_error>(where, "cannot tell its size: ", npy::errno_text(errno));
    auto const file_bytes = static_cast<std::uint64_t>(size);

    // Magic, version, header length.
    std::array<char, npy::magic_bytes + 4> pre{};
    if (in.read(pre.data(), npy::magic_bytes) != npy::magic_bytes ||
        std::string_view(pre.data(), npy::magic.size()) != npy::magic)
      detail::fail<io_error>(where, "not a .npy file (it does not begin with \"\\x93NUMPY\")");
    int const major = static_cast<unsigned char>(pre[6]),
              minor = static_cast<unsigned char>(pre[7]);
    if (major < 1 || major > 3 || minor != 0)
      detail::fail<io_error>(where, "format version ", major, ".", minor,
                             " is not one pallas reads (1.0, 2.0, 3.0)");
    std::size_t const len_bytes = major == 1 ? 2 : 4;
    if (in.read(pre.data() + npy::magic_bytes, len_bytes) != len_bytes)
      detail::fail<io_error>(where, "truncated: the file ends inside the header length");
    std::uint64_t header_len = 0;
    for (std::size_t b = 0; b < len_bytes; ++b)
      header_len |= std::uint64_t{static_cast<unsigned char>(pre[npy::magic_bytes + b])} << (8 * b);
    std::uint64_t const data_offset = npy::magic_bytes + len_bytes + header_len;
    if (header_len > npy::max_header_bytes || data_offset > file_bytes)
      detail::fail<io_error>(where, "truncated or corrupt: the header claims ", header_len,
                             " bytes, the file has ", file_bytes);
    std::string text(static_cast<std::size_t>(header_len), '\0');
    if (in.read(text.data(), header_len) != header_len)
      detail::fail<io_error>(where, "truncated: the file ends inside the header");
    npy::header const h = npy::header_parser(text, where).parse();

    // dtype.
    auto const d = npy::parse_descr(h.descr_str);
    if (!d)
      detail::fail<io_error>(where, "dtype '", h.descr_str,
                             "' is not one pallas reads; pl::load_npy<", codec::cpp, "> reads ",
                             codec::expected);
    if (!codec::reads(*d))
      detail::fail<io_error>(where, "holds dtype '", h.descr_str, "' (", npy::dtype_name(*d),
                             "), but pl::load_npy<", codec::cpp, "> reads ", codec::expected,
                             "; convert it in numpy with a.astype(", codec::numpy,
                             ") or load it as its own dtype");

    // Shape.
    constexpr std::array<index_t, rank> wanted{Dims...};
    bool shape_ok = h.shape.size() == rank;
    for (std::size_t r = 0; shape_ok && r < rank; ++r)
      shape_ok = wanted[r] == dyn || wanted[r] == h.shape[r];
    if (!shape_ok)
      detail::fail<io_error>(where, "holds shape ", npy::shape_string(h.shape),
                             ", but pl::load_npy<", codec::cpp, npy::template_arguments(wanted),
                             "> expects ", npy::shape_string(wanted));
    // The data must be exactly the shape's elements (no overflow: extents up to 2^56).
    std::array<index_t, rank> extents{};
    for (std::size_t r = 0; r < rank; ++r) extents[r] = h.shape[r];
    constexpr std::uint64_t max_elements = (std::uint64_t{1} << 62) / sizeof(T);
    std::uint64_t n = 1;
    bool too_many = false;
    if (std::find(h.shape.begin(), h.shape.end(), 0) != h.shape.end()) n = 0;  // empty
    for (std::size_t r = 0; r < rank && n != 0 && !too_many; ++r) {
      auto const e = static_cast<std::uint64_t>(h.shape[r]);
      too_many = n > max_elements / e;
      n *= too_many ? 1 : e;
    }
    std::uint64_t const data_bytes = file_bytes - data_offset;
    if (too_many || n * sizeof(T) != data_bytes)
      detail::fail<io_error>(
          where, "holds ", data_bytes, " bytes of data after its header, but shape ",
          npy::shape_string(h.shape), " of '", h.descr_str, "' needs ",
          too_many ? std::string("more than 2^62") : std::to_string(n * sizeof(T)));

    array_type a(uninitialized, array_type::shape_type::from_all(extents));
    bool const fortran = h.fortran_order && rank > 1;
    auto const read_bytes = [&](char* dst, std::uint64_t bytes) {
      if (in.read(dst, bytes) != bytes)
        detail::fail<io_error>(where, "reading the data failed: ", npy::errno_text(errno));
    };
    if (std::endian::native == std::endian::little && !d->big_endian() && !fortran &&
        !std::is_same_v<T, bool>) {
      read_bytes(reinterpret_cast<char*>(a.data()), data_bytes);
      return a;
    }
    std::vector<std::byte> raw(static_cast<std::size_t>(data_bytes));
    read_bytes(reinterpret_cast<char*>(raw.data()), data_bytes);
    // Element (i0, i1, ...) is at C offset sum(i_r * c_r) in `a` and at Fortran offset
    // sum(i_r * f_r) in `raw` (first index fastest).
    std::array<index_t, rank> f_stride{};
    for (std::size_t r = 0; r < rank; ++r) f_stride[r] = r ? f_stride[r - 1] * extents[r - 1] : 1;
    std::array<index_t, rank> ix{};
    index_t f_offset = 0;
    for (index_t c = 0; c < a.size(); ++c) {
      index_t const src = fortran ? f_offset : c;
      a.data()[c] =
          npy::decode<T>(&raw[static_cast<std::size_t>(src) * sizeof(T)], d->big_endian());
      for (std::size_t r = rank; r-- > 0;) {  // next C-order index, last fastest
        f_offset += f_stride[r];
        if (++ix[r] < extents[r]) break;
        f_offset -= f_stride[r] * extents[r];
        ix[r] = 0;
      }
    }
    return a;
  }
}

}  // namespace pallas
