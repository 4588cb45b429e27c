// expect-error: pallas::pallas_call: at most one pl::name
// A pallas_call named twice (which name would the trace show?). The positive twin names it once.
#include <pallas/pallas.hpp>

namespace pl = pallas;

int main() {
  auto const x = pl::Array<float, 8, 128>::full(1.0f);
  auto add_one = pl::pallas_call([](auto x_ref, auto o_ref) { o_ref[pl::ellipsis] = x_ref[pl::ellipsis] + 1.0f; },
                                 pl::like(x),
#ifdef PALLAS_COMPILE_FAIL
                                 pl::name("add_one"), pl::name("add_two"));
#else
                                 pl::name("add_one"));
#endif
  return add_one(x)(7, 127) == 2.0f ? 0 : 1;
}
