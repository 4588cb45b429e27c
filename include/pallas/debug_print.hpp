// SPDX-License-Identifier: Apache-2.0
#pragma once
// pl::debug_print(fmt, args...): `pl.debug_print` (and `jax.debug.print`) inside kernels.
//
//   pl::debug_print("step {} of {}: m = {}", pl::program_id(0), pl::num_programs(0), m);
//   // [core 1, grid (2, 0)] step 2 of 4: m = 0.5
//
// `{}` takes the next argument, `{{` and `}}` print a brace; anything else between braces,
// or a number of placeholders other than the number of arguments, throws pallas::error.
// Arguments: integers, floats (bfloat16/float16 as their float value), bools (True/False,
// as Python prints them), and block values (refs' blocks, expressions: printed like numpy).
// Each call writes one line to std::cout at once (lines of different cores do not
// interleave), prefixed inside a kernel with the core and, inside a pipeline or pallas_call
// body, the grid point (the global program ids).

#include <cstdint>
#include <iostream>
#include <mutex>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>

#include <pallas/dtype.hpp>
#include <pallas/error.hpp>
#include <pallas/expr/block.hpp>
#include <pallas/expr/expression.hpp>
#include <pallas/detail/runtime/core.hpp>

namespace pallas {
namespace detail {

inline std::mutex& debug_print_mutex() {
  static std::mutex m;
  return m;
}

template <class A>
void debug_print_value(std::ostream& out, A const& a) {
  if constexpr (std::is_same_v<A, bool>)
    out << (a ? "True" : "False");
  else if constexpr (std::is_same_v<A, std::int8_t> || std::is_same_v<A, std::uint8_t>)
    out << static_cast<int>(a);  // a number, not a character
  else if constexpr (is_half_v<A>)
    out << static_cast<float>(a);
  else if constexpr (Operand<A>)
    out << a.eval();
  else
    out << a;
}

/// "[core c, grid (i, j)] " inside a kernel, "" outside.
inline std::string debug_print_prefix() {
  core_state const* core = current_core;
  if (!core) return {};
  std::ostringstream p;
  p << "[core " << core->index;
  if (grid_frame const* g = core->grid) {
    p << ", grid (";
    for (int a = 0; a < g->rank; ++a) p << (a ? ", " : "") << g->program_id[a];
    p << (g->rank == 1 ? ",)" : ")");
  }
  p << "] ";
  return p.str();
}

}  // namespace detail

/// `pl.debug_print(fmt, *args)`: prints one line, `{}` replaced by the arguments in order.
template <class... A>
void debug_print(std::string_view fmt, A const&... args) {
  std::ostringstream line;
  line << detail::debug_print_prefix();
  std::size_t const placeholders = [&] {
    std::size_t n = 0;
    for (std::size_t i = 0; i < fmt.size(); ++i) {
      if (fmt[i] == '{' && i + 1 < fmt.size() && fmt[i + 1] == '{') {
        ++i;
      } else if (fmt[i] == '}' && i + 1 < fmt.size() && fmt[i + 1] == '}') {
        ++i;
      } else if (fmt[i] == '{' && i + 1 < fmt.size() && fmt[i + 1] == '}') {
        ++n;
        ++i;
      } else if (fmt[i] == '{' || fmt[i] == '}') {
        detail::fail("pallas::debug_print: the format \"", fmt, "\" has a brace at position ", i,
                     " that is not part of {}, {{ or }} (only {} placeholders are supported)");
      }
    }
    return n;
  }();
  if (placeholders != sizeof...(A))
    detail::fail("pallas::debug_print: the format \"", fmt, "\" has ", placeholders,
                 " placeholders but ", sizeof...(A), " values were given");
  std::size_t pos = 0;
  auto text_until_placeholder = [&] {
    for (; pos < fmt.size(); ++pos) {
      if ((fmt[pos] == '{' || fmt[pos] == '}') && pos + 1 < fmt.size() && fmt[pos + 1] == fmt[pos]) {
        line << fmt[pos++];
      } else if (fmt[pos] == '{') {
        pos += 2;  // "{}", checked above
        return;
      } else {
        line << fmt[pos];
      }
    }
  };
  ((text_until_placeholder(), detail::debug_print_value(line, args)), ...);
  text_until_placeholder();
  line << '\n';
  std::string const text = line.str();
  std::lock_guard lock(detail::debug_print_mutex());
  std::cout << text << std::flush;
}

}  // namespace pallas
