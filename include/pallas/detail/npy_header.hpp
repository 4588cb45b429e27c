// SPDX-License-Identifier: Apache-2.0
#pragma once
// The header of NumPy's .npy format (numpy/lib/format.py), as pl::save_npy writes it and
// pl::load_npy reads it:
//
//   "\x93NUMPY" major minor  header_len (v1: uint16 LE; v2, v3: uint32 LE)
//   "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }"  spaces  "\n"
//
// The whole preamble is a multiple of 64 bytes; v3 differs from v2 only in the header's
// encoding (UTF-8 instead of Latin-1, the same for the ASCII headers meant here). The
// writer matches np.save byte for byte: version 1.0, keys sorted, the spare spaces numpy
// leaves for growing the first axis, then the padding. The reader takes any key order,
// either quote, whitespace and trailing commas, as Python's literal parser would.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <pallas/error.hpp>
#include <pallas/shape.hpp>

namespace pallas::detail::npy {

inline constexpr std::string_view magic = "\x93NUMPY";
inline constexpr std::size_t magic_bytes = 8;     // magic + major + minor
inline constexpr std::size_t array_align = 64;    // numpy's ARRAY_ALIGN
inline constexpr std::size_t growth_digits = 21;  // numpy's GROWTH_AXIS_MAX_DIGITS
inline constexpr std::size_t max_header_bytes = std::size_t{1} << 20;

/// A parsed dtype string such as '<f4': byte order ('<', '>', '|' or '='), kind letter
/// (f, i, u, b, V, ...) and item size in bytes.
struct descr {
  char byte_order = '|';
  char kind = '?';
  std::size_t itemsize = 0;

  /// Whether the bytes of an item are stored most significant first.
  [[nodiscard]] bool big_endian() const noexcept { return byte_order == '>'; }
};

/// numpy's name for a descr, for messages: '<f8' -> "float64".
inline std::string dtype_name(descr const& d) {
  std::string const bits = std::to_string(d.itemsize * 8);
  switch (d.kind) {
    case 'f':
      return "float" + bits;
    case 'i':
      return "int" + bits;
    case 'u':
      return "uint" + bits;
    case 'c':
      return "complex" + bits;
    case 'b':
      return d.itemsize == 1 ? std::string("bool") : "bool of " + bits + " bits";
    case 'V':
      return d.itemsize == 2 ? std::string("void16: ml_dtypes' bfloat16")
                             : "void" + bits + " (raw bytes)";
    default:
      return std::string("kind '") + d.kind + "', " + bits + " bits";
  }
}

/// '<f4', '|b1', '>i2' -> descr; nullopt for anything else (structured dtypes, '<U8', ...).
inline std::optional<descr> parse_descr(std::string_view s) {
  if (s.size() < 3) return std::nullopt;
  descr d;
  d.byte_order = s[0];
  d.kind = s[1];
  if (d.byte_order != '<' && d.byte_order != '>' && d.byte_order != '|' && d.byte_order != '=')
    return std::nullopt;
  if (std::string_view("fiubcV").find(d.kind) == std::string_view::npos) return std::nullopt;
  for (char c : s.substr(2)) {
    if (c < '0' || c > '9' || d.itemsize > 1'000'000) return std::nullopt;
    d.itemsize = d.itemsize * 10 + static_cast<std::size_t>(c - '0');
  }
  if (d.itemsize == 0) return std::nullopt;
  return d;
}

/// The preamble np.save writes for an array of this descr and shape (C order).
inline std::string make_header(std::string_view descr_str, std::vector<index_t> const& shape) {
  std::string dict = "{'descr': '";
  dict += descr_str;
  dict += "', 'fortran_order': False, 'shape': (";
  for (std::size_t r = 0; r < shape.size(); ++r) {
    if (r) dict += ", ";
    dict += std::to_string(shape[r]);
  }
  if (shape.size() == 1) dict += ',';
  dict += "), }";
  // Room for the first axis to grow to 21 digits in place (numpy >= 1.24 does the same).
  if (!shape.empty()) {
    std::size_t const digits = std::to_string(shape[0]).size();
    if (digits < growth_digits) dict.append(growth_digits - digits, ' ');
  }
  // Version 1.0 unless its 16-bit header length cannot hold the header (then 2.0).
  auto const padding = [&](std::size_t len_bytes) {
    return array_align - (magic_bytes + len_bytes + dict.size() + 1) % array_align;  // 1..64
  };
  bool const v1 = dict.size() + padding(2) + 1 <= 0xFFFF;
  std::size_t const len_bytes = v1 ? 2 : 4;
  std::size_t const pad = padding(len_bytes);
  std::size_t const header_len = dict.size() + pad + 1;

  std::string out(magic);
  out += static_cast<char>(v1 ? 1 : 2);
  out += '\0';
  for (std::size_t b = 0; b < len_bytes; ++b)
    out += static_cast<char>((header_len >> (8 * b)) & 0xFFu);
  out += dict;
  out.append(pad, ' ');
  out += '\n';
  return out;
}

/// What a header says.
struct header {
  std::string descr_str;
  bool fortran_order = false;
  std::vector<index_t> shape;
};

/// Reads the Python literal dict of a header; `where` prefixes every error message.
class header_parser {
 public:
  header_parser(std::string_view text, std::string where) : s_(text), where_(std::move(where)) {}

  header parse() {
    header h;
    bool have_descr = false, have_order = false, have_shape = false;
    skip_space();
    expect('{');
    for (;;) {
      skip_space();
      if (peek() == '}') break;
      std::string const key = parse_string();
      skip_space();
      expect(':');
      skip_space();
      if (key == "descr") {
        if (have_descr) bad("the key 'descr' appears twice");
        if (peek() != '\'' && peek() != '"')
          bad("'descr' is not a plain dtype string (structured dtypes are not supported)");
        h.descr_str = parse_string();
        have_descr = true;
      } else if (key == "fortran_order") {
        if (have_order) bad("the key 'fortran_order' appears twice");
        h.fortran_order = parse_bool();
        have_order = true;
      } else if (key == "shape") {
        if (have_shape) bad("the key 'shape' appears twice");
        h.shape = parse_shape();
        have_shape = true;
      } else {
        bad("unexpected key '" + key + "' (a .npy header has 'descr', 'fortran_order', 'shape')");
      }
      skip_space();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() != '}') bad("expected ',' or '}' after the value of '" + key + "'");
    }
    ++pos_;  // '}'
    skip_space();
    if (pos_ != s_.size()) bad("unexpected text after the header's closing '}'");
    if (!have_descr || !have_order || !have_shape)
      bad("the header lacks one of 'descr', 'fortran_order', 'shape'");
    return h;
  }

 private:
  [[noreturn]] void bad(std::string const& what) const {
    fail<io_error>(where_, "malformed header: ", what, " (at byte ", pos_, " of '", s_, "')");
  }
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  void skip_space() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r'))
      ++pos_;
  }
  void expect(char c) {
    if (peek() != c) bad(std::string("expected '") + c + "'");
    ++pos_;
  }
  std::string parse_string() {
    char const quote = peek();
    if (quote != '\'' && quote != '"') bad("expected a quoted string");
    std::size_t const end = s_.find(quote, ++pos_);
    if (end == std::string_view::npos) bad("unterminated string");
    std::string out(s_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return out;
  }
  bool parse_bool() {
    if (s_.substr(pos_, 4) == "True") {
      pos_ += 4;
      return true;
    }
    if (s_.substr(pos_, 5) == "False") {
      pos_ += 5;
      return false;
    }
    bad("'fortran_order' is neither True nor False");
  }
  std::vector<index_t> parse_shape() {
    std::vector<index_t> shape;
    expect('(');
    for (;;) {
      skip_space();
      if (peek() == ')') break;
      if (peek() < '0' || peek() > '9') bad("'shape' holds something other than integers >= 0");
      index_t v = 0;
      while (peek() >= '0' && peek() <= '9') {
        if (v > (index_t{1} << 56)) bad("an extent in 'shape' is too large");
        v = v * 10 + (s_[pos_++] - '0');
      }
      if (peek() == 'L') ++pos_;  // Python 2's long suffix
      shape.push_back(v);
      skip_space();
      if (peek() == ',') {
        ++pos_;
      } else if (peek() != ')') {
        bad("expected ',' or ')' in 'shape'");
      }
    }
    ++pos_;  // ')'
    return shape;
  }

  std::string_view s_;
  std::string where_;
  std::size_t pos_ = 0;
};

}  // namespace pallas::detail::npy
