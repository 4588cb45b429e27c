// Tests for pallas/dtype.hpp. Every rounding result is compared with an independent
// reference written here in double arithmetic (frexp/ldexp/floor), never with the
// library's bit tricks.
#include <pallas/dtype.hpp>

#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using pallas::bfloat16;
using pallas::float16;

// ---------------------------------------------------------------------------------------
// Independent references

// Round x to a binary format with p significand bits (implicit bit included), minimum
// normal exponent emin and maximum exponent emax, round to nearest, ties to even; the
// result is returned as a double (Inf on overflow, signed zero kept). Exact for any
// double input: a / q is a scaling by a power of two, floor and the comparisons are exact.
double ref_round(double x, int p, int emin, int emax) {
  if (std::isnan(x) || std::isinf(x) || x == 0) return x;
  const double a = std::fabs(x);
  int e = 0;
  (void)std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1): leading bit 2^(e-1)
  int lead = e - 1;
  if (lead < emin) lead = emin;                     // subnormal: fixed quantum
  const double q = std::ldexp(1.0, lead - (p - 1));  // one unit in the last place
  const double n = a / q;
  double fl = std::floor(n);
  const double frac = n - fl;
  if (frac > 0.5 || (frac == 0.5 && std::fmod(fl, 2.0) == 1.0)) fl += 1.0;
  double r = fl * q;
  if (r >= std::ldexp(1.0, emax + 1)) r = std::numeric_limits<double>::infinity();
  return std::copysign(r, x);
}
double ref_bf16(double x) { return ref_round(x, 8, -126, 127); }
double ref_f16(double x) { return ref_round(x, 11, -14, 15); }

// Decode bit patterns from their fields (NaN for NaN patterns).
double ref_decode(std::uint16_t h, int exp_bits, int man_bits) {
  const int bias = (1 << (exp_bits - 1)) - 1;
  const bool neg = (h >> 15) & 1;
  const int e = (h >> man_bits) & ((1 << exp_bits) - 1);
  const int m = h & ((1 << man_bits) - 1);
  double v = 0;
  if (e == (1 << exp_bits) - 1)
    v = m ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  else if (e == 0)
    v = std::ldexp(static_cast<double>(m), 1 - bias - man_bits);
  else
    v = std::ldexp(static_cast<double>(m + (1 << man_bits)), e - bias - man_bits);
  return neg ? -v : v;
}
double ref_decode_bf16(std::uint16_t h) { return ref_decode(h, 8, 7); }
double ref_decode_f16(std::uint16_t h) { return ref_decode(h, 5, 10); }

// Round an int64 to p significant bits, ties to even, in integer arithmetic.
double ref_round_int(std::int64_t i, int p) {
  const bool neg = i < 0;
  std::uint64_t mag = neg ? 0 - static_cast<std::uint64_t>(i) : static_cast<std::uint64_t>(i);
  int width = 0;
  while (width < 64 && (mag >> width) != 0) ++width;
  if (width > p) {
    const int s = width - p;
    std::uint64_t hi = mag >> s;
    const std::uint64_t rem = mag & ((std::uint64_t{1} << s) - 1);
    const std::uint64_t half = std::uint64_t{1} << (s - 1);
    if (rem > half || (rem == half && (hi & 1))) ++hi;
    const double r = std::ldexp(static_cast<double>(hi), s);
    return neg ? -r : r;
  }
  const double r = static_cast<double>(mag);
  return neg ? -r : r;
}

// Collects mismatches inside big loops without a Catch assertion per iteration.
struct failures {
  long count = 0;
  std::vector<std::string> first;
  void add(const std::string& what) {
    if (count++ < 8) first.push_back(what);
  }
  void report() const {
    for (const auto& f : first) UNSCOPED_INFO(f);
    REQUIRE(count == 0);
  }
};

std::string hex(std::uint64_t v) {
  std::ostringstream os;
  os << "0x" << std::hex << v;
  return os.str();
}

float f32(std::uint32_t u) { return std::bit_cast<float>(u); }
std::uint32_t u32(float f) { return std::bit_cast<std::uint32_t>(f); }

// Check that the 16-bit result `got` (decoded independently) equals the reference value
// `want` of input `in`, including the sign of zero; NaN inputs must give a quiet NaN of
// the same sign (unless nan_sign is false: IEEE leaves the sign of an arithmetic NaN
// result open, and x86 picks one operand's).
template <class H>
void check_rounding(failures& fail, const char* what, double in, H got, double want,
                    bool nan_sign = true) {
  const std::uint16_t b = got.bits();
  const bool is_bf16 = std::is_same_v<H, bfloat16>;
  const double gv = is_bf16 ? ref_decode_bf16(b) : ref_decode_f16(b);
  if (std::isnan(in)) {
    const std::uint16_t quiet = is_bf16 ? 0x0040 : 0x0200;
    if (!std::isnan(gv) || !(b & quiet) || (nan_sign && std::signbit(gv) != std::signbit(in)))
      fail.add(std::string(what) + ": NaN input gave " + hex(b));
    return;
  }
  if (!(gv == want && std::signbit(gv) == std::signbit(want))) {
    std::ostringstream os;
    os.precision(17);
    os << what << ": input " << in << " gave " << hex(b) << " = " << gv << ", want " << want;
    fail.add(os.str());
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------

TEST_CASE("dtype: the reference rounding agrees with the hardware for float", "[dtype]") {
  // Validates ref_round itself: rounding to (24, -126, 127) must equal double -> float.
  std::mt19937_64 rng(7);
  failures fail;
  for (int i = 0; i < 20000; ++i) {
    const int e = static_cast<int>(rng() % 300) - 160;
    const double m = 1.0 + static_cast<double>(rng() >> 12) * 0x1p-52;
    double d = std::ldexp(m, e);
    if (d > std::numeric_limits<float>::max()) continue;  // double->float overflow is UB
    if (rng() & 1) d = -d;
    const double want = ref_round(d, 24, -126, 127);
    if (static_cast<double>(static_cast<float>(d)) != want) fail.add("float ref at " + hex(u32(static_cast<float>(d))));
  }
  fail.report();
}

TEST_CASE("dtype: bfloat16 and float16 are trivially copyable 16-bit types", "[dtype]") {
  STATIC_REQUIRE(sizeof(bfloat16) == 2);
  STATIC_REQUIRE(sizeof(float16) == 2);
  STATIC_REQUIRE(alignof(bfloat16) == 2);
  STATIC_REQUIRE(std::is_trivially_copyable_v<bfloat16>);
  STATIC_REQUIRE(std::is_trivially_copyable_v<float16>);
  STATIC_REQUIRE(std::is_trivially_default_constructible_v<bfloat16>);
  STATIC_REQUIRE(std::is_standard_layout_v<float16>);
  // Explicit from numbers, implicit to float.
  STATIC_REQUIRE(!std::is_convertible_v<float, bfloat16>);
  STATIC_REQUIRE(!std::is_convertible_v<int, float16>);
  STATIC_REQUIRE(!std::is_convertible_v<bfloat16, float16>);
  STATIC_REQUIRE(std::is_constructible_v<bfloat16, double>);
  STATIC_REQUIRE(std::is_constructible_v<float16, std::int64_t>);
  STATIC_REQUIRE(std::is_constructible_v<float16, bfloat16>);
  STATIC_REQUIRE(std::is_convertible_v<bfloat16, float>);
  STATIC_REQUIRE(std::is_convertible_v<float16, float>);
  STATIC_REQUIRE(bfloat16{}.bits() == 0);
  STATIC_REQUIRE(float16{}.bits() == 0);
}

TEST_CASE("dtype: conversions are constexpr", "[dtype]") {
  STATIC_REQUIRE(bfloat16(1.0f).bits() == 0x3F80);
  STATIC_REQUIRE(bfloat16(-2.0).bits() == 0xC000);
  STATIC_REQUIRE(bfloat16(3).bits() == 0x4040);
  STATIC_REQUIRE(float16(1.0f).bits() == 0x3C00);
  STATIC_REQUIRE(float16(65504.0).bits() == 0x7BFF);
  STATIC_REQUIRE(float16(-3).bits() == 0xC200);
  STATIC_REQUIRE(float16(0x1p-24f).bits() == 0x0001);
  STATIC_REQUIRE(static_cast<float>(float16::from_bits(0x0001)) == 0x1p-24f);
  STATIC_REQUIRE(static_cast<float>(bfloat16::from_bits(0x4049)) == 3.140625f);
  STATIC_REQUIRE((bfloat16(1.5f) + bfloat16(2.0f)).bits() == bfloat16(3.5f).bits());
  STATIC_REQUIRE(float16(2.0f) * float16(3.0f) == float16(6.0f));
  STATIC_REQUIRE(pallas::isnan(float16(std::numeric_limits<float>::quiet_NaN())));
  STATIC_REQUIRE(bfloat16(1e300).bits() == 0x7F80);
  STATIC_REQUIRE(float16(-1e-300).bits() == 0x8000);
}

TEST_CASE("dtype: bfloat16 to float is exact for every bit pattern", "[dtype]") {
  failures fail;
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const auto b = bfloat16::from_bits(static_cast<std::uint16_t>(h));
    const double want = ref_decode_bf16(static_cast<std::uint16_t>(h));
    const double got = static_cast<float>(b);
    if (std::isnan(want)) {
      if (!std::isnan(got) || std::signbit(got) != std::signbit(want)) fail.add("NaN " + hex(h));
    } else if (got != want || std::signbit(got) != std::signbit(want)) {
      fail.add("bf16 decode " + hex(h));
    }
    if (b.bits() != h) fail.add("bits() " + hex(h));
  }
  fail.report();
}

TEST_CASE("dtype: float -> bfloat16 rounds to nearest even (every value, tie, neighbour)",
          "[dtype]") {
  failures fail;
  const std::uint32_t lows[] = {0x0000, 0x0001, 0x3FFF, 0x7FFF, 0x8000, 0x8001, 0xC000, 0xFFFF};
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    for (std::uint32_t low : lows) {
      const float x = f32((h << 16) | low);
      check_rounding(fail, "bf16(float)", x, bfloat16(x), ref_bf16(x));
    }
    // The exact midpoint to the next bf16 up in magnitude, and its float neighbours,
    // computed in double from the decoded values (not from bit patterns).
    const double v = ref_decode_bf16(static_cast<std::uint16_t>(h));
    if (std::isfinite(v) && (h & 0x7FFF) != 0x7F7F) {
      const double next = ref_decode_bf16(static_cast<std::uint16_t>(h + 1));
      const float mid = static_cast<float>((v + next) / 2);  // exact in float
      const float below = std::nextafter(mid, 0.0f);
      const float above = std::nextafter(mid, mid < 0 ? -INFINITY : INFINITY);
      check_rounding(fail, "bf16(mid)", mid, bfloat16(mid), (h & 1) ? next : v);
      check_rounding(fail, "bf16(mid-)", below, bfloat16(below), v);
      check_rounding(fail, "bf16(mid+)", above, bfloat16(above), next);
    }
    // Round trip.
    const auto b = bfloat16::from_bits(static_cast<std::uint16_t>(h));
    if (!std::isnan(v) && bfloat16(static_cast<float>(b)).bits() != h) fail.add("roundtrip " + hex(h));
  }
  fail.report();
}

TEST_CASE("dtype: float -> bfloat16 on random floats", "[dtype]") {
  std::mt19937 rng(12345);
  failures fail;
  for (int i = 0; i < (1 << 18); ++i) {
    const float x = f32(static_cast<std::uint32_t>(rng()));
    check_rounding(fail, "bf16(random)", x, bfloat16(x), ref_bf16(x));
  }
  fail.report();
}

TEST_CASE("dtype: float16 to float is exact for every bit pattern", "[dtype]") {
  failures fail;
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const auto b = float16::from_bits(static_cast<std::uint16_t>(h));
    const double want = ref_decode_f16(static_cast<std::uint16_t>(h));
    const double got = static_cast<float>(b);
    if (std::isnan(want)) {
      if (!std::isnan(got) || std::signbit(got) != std::signbit(want)) fail.add("NaN " + hex(h));
    } else if (got != want || std::signbit(got) != std::signbit(want)) {
      fail.add("f16 decode " + hex(h));
    }
  }
  fail.report();
}

TEST_CASE("dtype: float -> float16 rounds to nearest even (every value, tie, neighbour)",
          "[dtype]") {
  failures fail;
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const double v = ref_decode_f16(static_cast<std::uint16_t>(h));
    if (std::isnan(v)) {
      const float x = static_cast<float>(float16::from_bits(static_cast<std::uint16_t>(h)));
      check_rounding(fail, "f16(nan)", x, float16(x), 0.0);
      continue;
    }
    const float x = static_cast<float>(v);
    check_rounding(fail, "f16(exact)", x, float16(x), v);
    if (float16(x).bits() != h) fail.add("roundtrip " + hex(h));
    const float inf = x < 0 || (x == 0 && std::signbit(x)) ? -INFINITY : INFINITY;
    for (float y : {std::nextafter(x, 0.0f), std::nextafter(x, inf)})
      check_rounding(fail, "f16(neighbour)", y, float16(y), ref_f16(y));
    if (std::isinf(v)) continue;
    // The next value up in magnitude; past the largest finite one it is 2^16, the
    // overflow threshold (the midpoint 65520 then rounds to Inf).
    const double next = (h & 0x7FFF) == 0x7BFF ? std::copysign(65536.0, v)
                                               : ref_decode_f16(static_cast<std::uint16_t>(h + 1));
    const double mid = (v + next) / 2;  // exact in float
    const float fm = static_cast<float>(mid);
    const double want_mid = (h & 0x7FFF) == 0x7BFF ? std::copysign(INFINITY, v) : ((h & 1) ? next : v);
    check_rounding(fail, "f16(mid)", fm, float16(fm), want_mid);
    const float below = std::nextafter(fm, 0.0f);
    const float above = std::nextafter(fm, inf);
    check_rounding(fail, "f16(mid-)", below, float16(below), v);
    check_rounding(fail, "f16(mid+)", above, float16(above), ref_f16(above));
    if ((h & 0x7FFF) != 0x7BFF) check_rounding(fail, "f16(mid+) is next", above, float16(above), next);
  }
  fail.report();
}

TEST_CASE("dtype: float -> float16 on random floats and the whole underflow range", "[dtype]") {
  std::mt19937 rng(54321);
  failures fail;
  for (int i = 0; i < (1 << 18); ++i) {
    const float x = f32(static_cast<std::uint32_t>(rng()));
    check_rounding(fail, "f16(random)", x, float16(x), ref_f16(x));
    // Random floats near f16's range (|x| in [2^-30, 2^17)), where every branch lives.
    const std::uint32_t e = 97 + static_cast<std::uint32_t>(rng() % 47);
    const float y = f32((static_cast<std::uint32_t>(rng()) & 0x807F'FFFFu) | (e << 23));
    check_rounding(fail, "f16(near range)", y, float16(y), ref_f16(y));
  }
  fail.report();
}

TEST_CASE("dtype: float16 special values, subnormals and overflow", "[dtype]") {
  CHECK(float16(65504.0f).bits() == 0x7BFF);
  CHECK(float16(65519.996f).bits() == 0x7BFF);  // just below the threshold
  CHECK(float16(65520.0f).bits() == 0x7C00);    // tie between max and 2^16: Inf
  CHECK(float16(-65520.0f).bits() == 0xFC00);
  CHECK(float16(1e6f).bits() == 0x7C00);
  CHECK(float16(INFINITY).bits() == 0x7C00);
  CHECK(float16(-INFINITY).bits() == 0xFC00);
  CHECK(float16(0.0f).bits() == 0x0000);
  CHECK(float16(-0.0f).bits() == 0x8000);
  CHECK(float16(0x1p-24f).bits() == 0x0001);    // smallest subnormal
  CHECK(float16(0x1p-25f).bits() == 0x0000);    // tie with 0: even is 0
  CHECK(float16(-0x1p-25f).bits() == 0x8000);
  CHECK(float16(0x1.000002p-25f).bits() == 0x0001);
  CHECK(float16(0x3p-25f).bits() == 0x0002);    // 1.5 ulp: tie to even 2
  CHECK(float16(0x5p-25f).bits() == 0x0002);    // 2.5 ulp: tie to even 2
  CHECK(float16(0x3FFp-24f).bits() == 0x03FF);  // largest subnormal
  CHECK(float16(0x7FFp-25f).bits() == 0x0400);  // rounds up into the smallest normal
  CHECK(float16(0x1p-14f).bits() == 0x0400);
  CHECK(float16(1e-10f).bits() == 0x0000);
  CHECK(float16(std::numeric_limits<float>::denorm_min()).bits() == 0x0000);
  const auto n = float16(-std::numeric_limits<float>::quiet_NaN());
  CHECK(pallas::isnan(n));
  CHECK((n.bits() & 0x8000) != 0);
  // A signalling float NaN whose payload would vanish in 10 bits stays NaN (and quiet).
  const auto s = float16(f32(0x7F80'0001u));
  CHECK(pallas::isnan(s));
  CHECK((s.bits() & 0x0200) != 0);
  const auto sb = bfloat16(f32(0xFF80'0001u));
  CHECK(pallas::isnan(sb));
  CHECK(sb.bits() == 0xFFC0);
}

TEST_CASE("dtype: bfloat16 special values", "[dtype]") {
  CHECK(bfloat16(INFINITY).bits() == 0x7F80);
  CHECK(bfloat16(-INFINITY).bits() == 0xFF80);
  CHECK(bfloat16(-0.0f).bits() == 0x8000);
  CHECK(bfloat16(std::numeric_limits<float>::max()).bits() == 0x7F80);  // rounds to Inf
  CHECK(bfloat16(f32(0x7F7F'7FFFu)).bits() == 0x7F7F);
  CHECK(bfloat16(f32(0x7F7F'8000u)).bits() == 0x7F80);  // tie, odd mantissa: up, to Inf
  CHECK(bfloat16(f32(0x3F80'8000u)).bits() == 0x3F80);  // tie, even: down
  CHECK(bfloat16(f32(0x3F81'8000u)).bits() == 0x3F82);  // tie, odd: up
  CHECK(bfloat16(std::numeric_limits<float>::denorm_min()).bits() == 0x0000);
  CHECK(bfloat16(f32(0x0000'8001u)).bits() == 0x0001);  // bf16 subnormals exist
  CHECK(bfloat16(std::numeric_limits<float>::quiet_NaN()).bits() == 0x7FC0);
  CHECK(bfloat16(-std::numeric_limits<float>::quiet_NaN()).bits() == 0xFFC0);
}

TEST_CASE("dtype: double -> bfloat16/float16 is a single rounding", "[dtype]") {
  // Two-step rounding through float would get these wrong.
  CHECK(bfloat16(1.0 + 0x1p-8 + 0x1p-30).bits() == 0x3F81);  // via float: tie -> 0x3F80
  CHECK(bfloat16(1.0 + 0x1p-8 - 0x1p-30).bits() == 0x3F80);
  CHECK(float16(1.0 + 0x1p-11 + 0x1p-40).bits() == 0x3C01);
  CHECK(float16(1.0 + 0x1p-11).bits() == 0x3C00);
  CHECK(float16(65520.0 - 0x1p-20).bits() == 0x7BFF);  // float would round it to 65520
  CHECK(bfloat16(1e300).bits() == 0x7F80);
  CHECK(bfloat16(-1e300).bits() == 0xFF80);
  CHECK(bfloat16(3.4e38).bits() == 0x7F80);  // finite float, beyond bf16 max + half ulp
  CHECK(float16(1e-300).bits() == 0x0000);
  CHECK(bfloat16(1e-300).bits() == 0x0000);
  CHECK(bfloat16(-0.0).bits() == 0x8000);
  CHECK(pallas::isnan(bfloat16(std::numeric_limits<double>::quiet_NaN())));
  CHECK(bfloat16(-std::numeric_limits<double>::quiet_NaN()).bits() == 0xFFC0);
  CHECK(float16(std::numeric_limits<double>::infinity()).bits() == 0x7C00);

  failures fail;
  // Every bf16/f16 midpoint nudged by a relative 2^-40 either way (below float's
  // resolution, so a float intermediate would see a tie).
  for (std::uint32_t h = 0; h < 0x7F7F; ++h) {
    const double v = ref_decode_bf16(static_cast<std::uint16_t>(h));
    const double mid = (v + ref_decode_bf16(static_cast<std::uint16_t>(h + 1))) / 2;
    for (double d : {mid, mid * (1 + 0x1p-40), mid * (1 - 0x1p-40), -mid * (1 + 0x1p-40)})
      check_rounding(fail, "bf16(double)", d, bfloat16(d), ref_bf16(d));
  }
  for (std::uint32_t h = 0; h < 0x7C00; ++h) {
    const double v = ref_decode_f16(static_cast<std::uint16_t>(h));
    const double next = h == 0x7BFF ? 65536.0 : ref_decode_f16(static_cast<std::uint16_t>(h + 1));
    const double mid = (v + next) / 2;
    for (double d : {mid, mid * (1 + 0x1p-40), mid * (1 - 0x1p-40), -mid * (1 - 0x1p-40)})
      check_rounding(fail, "f16(double)", d, float16(d), ref_f16(d));
  }
  std::mt19937_64 rng(99);
  for (int i = 0; i < 100000; ++i) {
    const double m = 1.0 + static_cast<double>(rng() >> 12) * 0x1p-52;
    double d = std::ldexp(m, static_cast<int>(rng() % 300) - 150);
    if (rng() & 1) d = -d;
    check_rounding(fail, "bf16(random double)", d, bfloat16(d), ref_bf16(d));
    check_rounding(fail, "f16(random double)", d, float16(d), ref_f16(d));
  }
  fail.report();
}

TEST_CASE("dtype: integers -> bfloat16/float16 round to nearest even", "[dtype]") {
  CHECK(static_cast<float>(bfloat16(257)) == 256.0f);  // tie, even
  CHECK(static_cast<float>(bfloat16(259)) == 260.0f);  // tie, odd -> up
  CHECK(static_cast<float>(float16(2049)) == 2048.0f);
  CHECK(static_cast<float>(float16(2051)) == 2052.0f);
  CHECK(float16(65519).bits() == 0x7BFF);
  CHECK(float16(65520).bits() == 0x7C00);
  CHECK(float16(-65520).bits() == 0xFC00);
  CHECK(static_cast<float>(bfloat16(std::numeric_limits<std::uint32_t>::max())) == 0x1p32f);
  CHECK(float16(std::numeric_limits<std::uint32_t>::max()).bits() == 0x7C00);
  CHECK(static_cast<float>(bfloat16(std::numeric_limits<std::int32_t>::min())) == -0x1p31f);
  CHECK(static_cast<float>(bfloat16(std::numeric_limits<std::int64_t>::min())) == -0x1p63f);
  CHECK(bfloat16(std::int8_t{-3}).bits() == 0xC040);
  CHECK(bfloat16(true).bits() == 0x3F80);
  // 2^60 + 2^52 + 1: double rounding (to double, then bf16) would see a tie and go down.
  const std::int64_t big = (std::int64_t{1} << 60) + (std::int64_t{1} << 52) + 1;
  CHECK(static_cast<float>(bfloat16(big)) == 0x1.02p60f);

  failures fail;
  for (std::int32_t i = -70000; i <= 70000; ++i) {
    check_rounding(fail, "bf16(int)", i, bfloat16(i), ref_round_int(i, 8));
    const double w16 = std::fabs(ref_round_int(i, 11)) >= 65536 ? std::copysign(INFINITY, i)
                                                                : ref_round_int(i, 11);
    check_rounding(fail, "f16(int)", i, float16(i), w16);
  }
  std::mt19937_64 rng(3);
  for (int k = 0; k < 50000; ++k) {
    const auto i64 = static_cast<std::int64_t>(rng() >> (rng() % 64));
    const double d = static_cast<double>(i64);  // only the input for the message
    check_rounding(fail, "bf16(int64)", d, bfloat16(i64), ref_round_int(i64, 8));
    const auto i32 = static_cast<std::int32_t>(rng());
    check_rounding(fail, "bf16(int32)", i32, bfloat16(i32), ref_round_int(i32, 8));
    const auto u = static_cast<std::uint32_t>(rng());
    check_rounding(fail, "bf16(uint32)", u, bfloat16(u), ref_round_int(u, 8));
  }
  fail.report();
}

TEST_CASE("dtype: arithmetic is float arithmetic rounded back", "[dtype]") {
  // With two 16-bit operands float arithmetic is exact enough (24 >= 2*11+2) that the
  // result equals the correctly rounded exact result; the reference rounds the double
  // result, which is likewise correctly rounded (53 >= 2*11+2).
  std::mt19937 rng(2024);
  failures fail;
  for (int i = 0; i < 40000; ++i) {
    const auto ha = static_cast<std::uint16_t>(rng());
    const auto hb = static_cast<std::uint16_t>(rng());
    {
      const auto a = bfloat16::from_bits(ha), b = bfloat16::from_bits(hb);
      const double x = ref_decode_bf16(ha), y = ref_decode_bf16(hb);
      check_rounding(fail, "bf16 +", x + y, a + b, ref_bf16(x + y), false);
      check_rounding(fail, "bf16 -", x - y, a - b, ref_bf16(x - y), false);
      check_rounding(fail, "bf16 *", x * y, a * b, ref_bf16(x * y), false);
      check_rounding(fail, "bf16 /", x / y, a / b, ref_bf16(x / y), false);
    }
    {
      const auto a = float16::from_bits(ha), b = float16::from_bits(hb);
      const double x = ref_decode_f16(ha), y = ref_decode_f16(hb);
      check_rounding(fail, "f16 +", x + y, a + b, ref_f16(x + y), false);
      check_rounding(fail, "f16 -", x - y, a - b, ref_f16(x - y), false);
      check_rounding(fail, "f16 *", x * y, a * b, ref_f16(x * y), false);
      check_rounding(fail, "f16 /", x / y, a / b, ref_f16(x / y), false);
    }
  }
  fail.report();

  // bf16 + bf16 stays bf16; mixing with float gives float (float is the promoted type).
  STATIC_REQUIRE(std::is_same_v<decltype(bfloat16{} + bfloat16{}), bfloat16>);
  STATIC_REQUIRE(std::is_same_v<decltype(float16{} * float16{}), float16>);
  STATIC_REQUIRE(std::is_same_v<decltype(bfloat16{} + 1.0f), float>);
  STATIC_REQUIRE(std::is_same_v<decltype(bfloat16{} + float16{}), float>);
  STATIC_REQUIRE(std::is_same_v<decltype(-bfloat16{}), bfloat16>);

  CHECK((bfloat16(1.0f) + bfloat16(0x1p-8f)).bits() == 0x3F80);  // 1 + half ulp: tie, even
  CHECK((-bfloat16(0.0f)).bits() == 0x8000);
  CHECK((-float16(1.0f)).bits() == 0xBC00);
  CHECK((+float16(1.0f)).bits() == 0x3C00);
  CHECK((float16(1.0f) / float16(0.0f)).bits() == 0x7C00);
  CHECK(pallas::isnan(float16(0.0f) / float16(0.0f)));
  CHECK((float16(60000.0f) + float16(60000.0f)).bits() == 0x7C00);

  bfloat16 acc(0.0f);
  for (int i = 0; i < 300; ++i) acc += bfloat16(1.0f);
  CHECK(static_cast<float>(acc) == 256.0f);  // 256 + 1 rounds back to 256 in bf16
  float16 h(10.0f);
  h -= float16(4.0f);
  CHECK(static_cast<float>(h) == 6.0f);
  h *= float16(0.5f);
  CHECK(static_cast<float>(h) == 3.0f);
  h /= float16(2.0f);
  CHECK(static_cast<float>(h) == 1.5f);
  h += 0.25f;
  CHECK(static_cast<float>(h) == 1.75f);
  h *= 2;
  CHECK(static_cast<float>(h) == 3.5f);
  bfloat16 g(1.0f);
  g /= 3.0f;
  CHECK(g.bits() == bfloat16(1.0 / 3.0).bits());
  g -= 1.0f;
  CHECK(g.bits() == bfloat16(static_cast<float>(bfloat16(1.0 / 3.0)) - 1.0f).bits());
}

TEST_CASE("dtype: comparisons follow float (NaN unordered, -0 == +0)", "[dtype]") {
  const auto nan = std::numeric_limits<bfloat16>::quiet_NaN();
  CHECK_FALSE(nan == nan);
  CHECK(nan != nan);
  CHECK_FALSE(nan < nan);
  CHECK_FALSE(nan >= bfloat16(0.0f));
  CHECK(bfloat16(-0.0f) == bfloat16(0.0f));
  CHECK(bfloat16(1.0f) < bfloat16(2.0f));
  CHECK(bfloat16(2.0f) >= bfloat16(2.0f));
  CHECK(bfloat16(3.0f) > bfloat16(-3.0f));
  CHECK(bfloat16(-1.0f) <= bfloat16(-1.0f));
  CHECK(float16(-0.0f) == float16(0.0f));
  CHECK(float16(1.0f) != float16(1.0009765625f));
  CHECK(float16(0x1p-24f) > float16(0.0f));
  CHECK_FALSE(std::numeric_limits<float16>::quiet_NaN() == std::numeric_limits<float16>::quiet_NaN());
  // Against float operands the built-in float comparison applies.
  CHECK(bfloat16(0.5f) == 0.5f);
  CHECK(float16(0.1f) != 0.1f);
  // Every ordered pair from a sweep agrees with the decoded values.
  failures fail;
  for (std::uint32_t a = 0; a < 0x10000; a += 251) {
    for (std::uint32_t b = 0; b < 0x10000; b += 257) {
      const auto x = float16::from_bits(static_cast<std::uint16_t>(a));
      const auto y = float16::from_bits(static_cast<std::uint16_t>(b));
      const double dx = ref_decode_f16(static_cast<std::uint16_t>(a));
      const double dy = ref_decode_f16(static_cast<std::uint16_t>(b));
      if ((x < y) != (dx < dy) || (x == y) != (dx == dy) || (x >= y) != (dx >= dy))
        fail.add("compare " + hex(a) + " " + hex(b));
    }
  }
  fail.report();
}

TEST_CASE("dtype: stream output prints the float value", "[dtype]") {
  std::ostringstream os;
  os << bfloat16(1.5f) << ' ' << float16(-0.25f) << ' ' << float16(65504.0f) << ' '
     << bfloat16(INFINITY);
  CHECK(os.str() == "1.5 -0.25 65504 inf");
}

TEST_CASE("dtype: numeric_limits, hand-checked", "[dtype]") {
  using LB = std::numeric_limits<bfloat16>;
  using LH = std::numeric_limits<float16>;
  STATIC_REQUIRE(LB::is_specialized);
  STATIC_REQUIRE(LH::is_specialized);
  STATIC_REQUIRE(LB::digits == 8);
  STATIC_REQUIRE(LH::digits == 11);
  STATIC_REQUIRE(LB::digits10 == 2);
  STATIC_REQUIRE(LH::digits10 == 3);
  STATIC_REQUIRE(LB::max_digits10 == 4);
  STATIC_REQUIRE(LH::max_digits10 == 5);
  STATIC_REQUIRE(LB::min_exponent == std::numeric_limits<float>::min_exponent);
  STATIC_REQUIRE(LB::max_exponent == std::numeric_limits<float>::max_exponent);
  STATIC_REQUIRE(LB::min_exponent10 == std::numeric_limits<float>::min_exponent10);
  STATIC_REQUIRE(LB::max_exponent10 == std::numeric_limits<float>::max_exponent10);
  STATIC_REQUIRE(LH::min_exponent == -13);
  STATIC_REQUIRE(LH::max_exponent == 16);
  STATIC_REQUIRE(LH::min_exponent10 == -4);
  STATIC_REQUIRE(LH::max_exponent10 == 4);
  STATIC_REQUIRE(LB::has_infinity && LB::has_quiet_NaN && LH::has_infinity && LH::has_quiet_NaN);
  STATIC_REQUIRE(LH::is_iec559);
  STATIC_REQUIRE(!LB::is_integer && !LH::is_exact && LB::is_signed);
  STATIC_REQUIRE(LB::radix == 2 && LH::radix == 2);
  STATIC_REQUIRE(std::numeric_limits<const bfloat16>::digits == 8);

  // Values: powers of two and decimal expansions written out by hand.
  CHECK(static_cast<float>(LB::max()) == 3.38953139e38f);   // (2 - 2^-7) * 2^127
  CHECK(static_cast<float>(LB::max()) == 0x1.FEp127f);
  CHECK(static_cast<float>(LB::lowest()) == -0x1.FEp127f);
  CHECK(static_cast<float>(LB::min()) == 0x1p-126f);          // 1.17549435e-38
  CHECK(static_cast<float>(LB::denorm_min()) == 0x1p-133f);   // 9.18354962e-41
  CHECK(static_cast<float>(LB::epsilon()) == 0.0078125f);     // 2^-7
  CHECK(static_cast<float>(LB::round_error()) == 0.5f);
  CHECK(std::isinf(static_cast<float>(LB::infinity())));
  CHECK(static_cast<float>(LB::infinity()) > 0);
  CHECK(std::isnan(static_cast<float>(LB::quiet_NaN())));
  CHECK(std::isnan(static_cast<float>(LB::signaling_NaN())));

  CHECK(static_cast<float>(LH::max()) == 65504.0f);
  CHECK(static_cast<float>(LH::lowest()) == -65504.0f);
  CHECK(static_cast<float>(LH::min()) == 6.103515625e-05f);           // 2^-14
  CHECK(static_cast<float>(LH::denorm_min()) == 5.9604644775390625e-08f);  // 2^-24
  CHECK(static_cast<float>(LH::epsilon()) == 0.0009765625f);          // 2^-10
  CHECK(static_cast<float>(LH::round_error()) == 0.5f);
  CHECK(std::isinf(static_cast<float>(LH::infinity())));
  CHECK(std::isnan(static_cast<float>(LH::quiet_NaN())));
  CHECK(std::isnan(static_cast<float>(LH::signaling_NaN())));
  CHECK((LH::signaling_NaN().bits() & 0x0200) == 0);  // signalling: quiet bit clear
  CHECK((LB::signaling_NaN().bits() & 0x0040) == 0);

  // Properties: epsilon is the gap after 1; max + half an ulp overflows; min is normal
  // and the value before it is subnormal.
  CHECK(static_cast<float>(bfloat16::from_bits(bfloat16(1.0f).bits() + 1)) - 1.0f ==
        static_cast<float>(LB::epsilon()));
  CHECK(static_cast<float>(float16::from_bits(float16(1.0f).bits() + 1)) - 1.0f ==
        static_cast<float>(LH::epsilon()));
  CHECK(float16(65504.0f + 16.0f).bits() == LH::infinity().bits());
  CHECK(static_cast<float>(float16::from_bits(LH::min().bits() - 1)) ==
        static_cast<float>(LH::min()) - static_cast<float>(LH::denorm_min()));
}

TEST_CASE("dtype: isnan, isinf, isfinite for every dtype", "[dtype]") {
  STATIC_REQUIRE(pallas::isnan(std::numeric_limits<bfloat16>::quiet_NaN()));
  STATIC_REQUIRE(!pallas::isnan(bfloat16(1.0f)));
  STATIC_REQUIRE(pallas::isinf(-std::numeric_limits<float16>::infinity()));
  STATIC_REQUIRE(!pallas::isinf(std::numeric_limits<float16>::max()));
  STATIC_REQUIRE(pallas::isnan(std::numeric_limits<float>::quiet_NaN()));
  STATIC_REQUIRE(pallas::isinf(-std::numeric_limits<float>::infinity()));
  STATIC_REQUIRE(!pallas::isnan(std::int32_t{5}));
  STATIC_REQUIRE(!pallas::isinf(std::numeric_limits<std::int8_t>::min()));
  STATIC_REQUIRE(pallas::isfinite(std::uint32_t{7}));
  STATIC_REQUIRE(pallas::isfinite(true));
  STATIC_REQUIRE(!pallas::isfinite(std::numeric_limits<float16>::quiet_NaN()));
  STATIC_REQUIRE(pallas::isfinite(std::numeric_limits<bfloat16>::lowest()));
  STATIC_REQUIRE(pallas::isnan(std::numeric_limits<double>::quiet_NaN()));

  failures fail;
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const auto hb = static_cast<std::uint16_t>(h);
    const double b = ref_decode_bf16(hb), f = ref_decode_f16(hb);
    const auto xb = bfloat16::from_bits(hb);
    const auto xf = float16::from_bits(hb);
    if (pallas::isnan(xb) != std::isnan(b) || pallas::isinf(xb) != std::isinf(b) ||
        pallas::isfinite(xb) != std::isfinite(b) || std::isnan(xb) != std::isnan(b))
      fail.add("bf16 class " + hex(h));
    if (pallas::isnan(xf) != std::isnan(f) || pallas::isinf(xf) != std::isinf(f) ||
        pallas::isfinite(xf) != std::isfinite(f) || std::isinf(xf) != std::isinf(f))
      fail.add("f16 class " + hex(h));
  }
  fail.report();
}

TEST_CASE("dtype: traits and the Dtype concept", "[dtype]") {
  using pallas::dtype_traits;
  STATIC_REQUIRE(dtype_traits<float>::name == "float32");
  STATIC_REQUIRE(dtype_traits<bfloat16>::name == "bfloat16");
  STATIC_REQUIRE(dtype_traits<float16>::name == "float16");
  STATIC_REQUIRE(dtype_traits<std::int8_t>::name == "int8");
  STATIC_REQUIRE(dtype_traits<std::int16_t>::name == "int16");
  STATIC_REQUIRE(dtype_traits<std::int32_t>::name == "int32");
  STATIC_REQUIRE(dtype_traits<std::uint32_t>::name == "uint32");
  STATIC_REQUIRE(dtype_traits<bool>::name == "bool");

  STATIC_REQUIRE(dtype_traits<float>::bits == 32);
  STATIC_REQUIRE(dtype_traits<float>::bytes == 4);
  STATIC_REQUIRE(dtype_traits<bfloat16>::bits == 16);
  STATIC_REQUIRE(dtype_traits<bfloat16>::bytes == 2);
  STATIC_REQUIRE(dtype_traits<float16>::bits == 16);
  STATIC_REQUIRE(dtype_traits<std::int8_t>::bits == 8);
  STATIC_REQUIRE(dtype_traits<std::int8_t>::bytes == 1);
  STATIC_REQUIRE(dtype_traits<std::int16_t>::bytes == 2);
  STATIC_REQUIRE(dtype_traits<std::int32_t>::bits == 32);
  STATIC_REQUIRE(dtype_traits<std::uint32_t>::bytes == 4);
  STATIC_REQUIRE(dtype_traits<bool>::bytes == 1);
  STATIC_REQUIRE(std::is_same_v<decltype(dtype_traits<float>::bytes), const std::int64_t>);

  STATIC_REQUIRE(dtype_traits<float>::is_floating && !dtype_traits<float>::is_integral);
  STATIC_REQUIRE(dtype_traits<bfloat16>::is_floating && dtype_traits<bfloat16>::is_signed);
  STATIC_REQUIRE(dtype_traits<float16>::is_floating);
  STATIC_REQUIRE(dtype_traits<std::int8_t>::is_integral && dtype_traits<std::int8_t>::is_signed);
  STATIC_REQUIRE(dtype_traits<std::uint32_t>::is_integral && !dtype_traits<std::uint32_t>::is_signed);
  STATIC_REQUIRE(!dtype_traits<std::int32_t>::is_floating);
  STATIC_REQUIRE(!dtype_traits<bool>::is_floating && !dtype_traits<bool>::is_integral &&
                 !dtype_traits<bool>::is_signed);

  // poison()
  STATIC_REQUIRE(pallas::isnan(dtype_traits<float>::poison()));
  STATIC_REQUIRE(pallas::isnan(dtype_traits<bfloat16>::poison()));
  STATIC_REQUIRE(pallas::isnan(dtype_traits<float16>::poison()));
  STATIC_REQUIRE(dtype_traits<std::int8_t>::poison() == -128);
  STATIC_REQUIRE(dtype_traits<std::int16_t>::poison() == -32768);
  STATIC_REQUIRE(dtype_traits<std::int32_t>::poison() == -2147483647 - 1);
  STATIC_REQUIRE(dtype_traits<std::uint32_t>::poison() == 4294967295u);
  STATIC_REQUIRE(dtype_traits<bool>::poison() == true);
  STATIC_REQUIRE(std::is_same_v<decltype(dtype_traits<bfloat16>::poison()), bfloat16>);
  CHECK((dtype_traits<bfloat16>::poison().bits() & 0x0040) != 0);  // quiet
  CHECK((dtype_traits<float16>::poison().bits() & 0x0200) != 0);

  // The concept: exactly eight types.
  STATIC_REQUIRE(pallas::Dtype<float>);
  STATIC_REQUIRE(pallas::Dtype<bfloat16>);
  STATIC_REQUIRE(pallas::Dtype<float16>);
  STATIC_REQUIRE(pallas::Dtype<std::int8_t>);
  STATIC_REQUIRE(pallas::Dtype<std::int16_t>);
  STATIC_REQUIRE(pallas::Dtype<std::int32_t>);
  STATIC_REQUIRE(pallas::Dtype<std::uint32_t>);
  STATIC_REQUIRE(pallas::Dtype<bool>);
  STATIC_REQUIRE(pallas::Dtype<int>);  // int is std::int32_t here
  STATIC_REQUIRE(!pallas::Dtype<double>);
  STATIC_REQUIRE(!pallas::Dtype<long double>);
  STATIC_REQUIRE(!pallas::Dtype<std::int64_t>);
  STATIC_REQUIRE(!pallas::Dtype<std::uint64_t>);
  STATIC_REQUIRE(!pallas::Dtype<std::uint8_t>);
  STATIC_REQUIRE(!pallas::Dtype<std::uint16_t>);
  STATIC_REQUIRE(!pallas::Dtype<char>);
  STATIC_REQUIRE(!pallas::Dtype<const float>);
  STATIC_REQUIRE(!pallas::Dtype<float&>);
  STATIC_REQUIRE(!pallas::Dtype<void>);
  STATIC_REQUIRE(pallas::is_dtype_v<bfloat16>);
  STATIC_REQUIRE(!pallas::is_dtype_v<std::string>);
}

namespace {
// Reference promotion, written as jnp's rules in words rather than as a table.
enum class kind { boolean, sint, uint, bf16, f16, f32 };
struct dt {
  kind k;
  int bits;
};
template <class T>
constexpr dt describe() {
  if constexpr (std::is_same_v<T, bool>) return {kind::boolean, 8};
  else if constexpr (std::is_same_v<T, std::uint32_t>) return {kind::uint, 32};
  else if constexpr (std::is_same_v<T, bfloat16>) return {kind::bf16, 16};
  else if constexpr (std::is_same_v<T, float16>) return {kind::f16, 16};
  else if constexpr (std::is_same_v<T, float>) return {kind::f32, 32};
  else return {kind::sint, static_cast<int>(8 * sizeof(T))};
}
constexpr bool is_float(dt a) { return a.k == kind::bf16 || a.k == kind::f16 || a.k == kind::f32; }
constexpr bool same(dt a, dt b) { return a.k == b.k && a.bits == b.bits; }
constexpr dt ref_promote(dt a, dt b) {
  if (same(a, b)) return a;
  if (a.k == kind::boolean) return b;
  if (b.k == kind::boolean) return a;
  if (is_float(a) && is_float(b)) return {kind::f32, 32};  // any mix of two floats
  if (is_float(a)) return a;
  if (is_float(b)) return b;
  if (a.k == kind::sint && b.k == kind::sint) return a.bits > b.bits ? a : b;
  return {kind::sint, 32};  // signed with uint32: jnp says int64, we have int32
}
template <class A, class B>
constexpr bool promote_ok() {
  constexpr dt want = ref_promote(describe<A>(), describe<B>());
  return same(describe<pallas::promote_t<A, B>>(), want);
}
template <class A, class... Bs>
constexpr bool promote_row_ok() {
  return (promote_ok<A, Bs>() && ...);
}
template <class... Ts>
constexpr bool promote_all_ok() {
  return (promote_row_ok<Ts, Ts...>() && ...);
}
}  // namespace

TEST_CASE("dtype: promote_t follows jnp promotion", "[dtype]") {
  using pallas::promote_t;
  STATIC_REQUIRE(promote_all_ok<bool, std::int8_t, std::int16_t, std::int32_t, std::uint32_t,
                                bfloat16, float16, float>());
  STATIC_REQUIRE(std::is_same_v<promote_t<float, bfloat16>, float>);
  STATIC_REQUIRE(std::is_same_v<promote_t<bfloat16, float16>, float>);
  STATIC_REQUIRE(std::is_same_v<promote_t<float16, bfloat16>, float>);
  STATIC_REQUIRE(std::is_same_v<promote_t<std::int32_t, bfloat16>, bfloat16>);
  STATIC_REQUIRE(std::is_same_v<promote_t<float16, std::uint32_t>, float16>);
  STATIC_REQUIRE(std::is_same_v<promote_t<std::int8_t, std::int16_t>, std::int16_t>);
  STATIC_REQUIRE(std::is_same_v<promote_t<std::int32_t, std::uint32_t>, std::int32_t>);
  STATIC_REQUIRE(std::is_same_v<promote_t<std::uint32_t, std::int8_t>, std::int32_t>);
  STATIC_REQUIRE(std::is_same_v<promote_t<bool, std::uint32_t>, std::uint32_t>);
  STATIC_REQUIRE(std::is_same_v<promote_t<float16, bool>, float16>);
  STATIC_REQUIRE(std::is_same_v<promote_t<bool, bool>, bool>);
  STATIC_REQUIRE(std::is_same_v<pallas::promote<std::int8_t, float>::type, float>);
}

TEST_CASE("dtype: convert (astype) edge cases", "[dtype]") {
  using pallas::convert;
  constexpr float nan = std::numeric_limits<float>::quiet_NaN();
  constexpr float inf = std::numeric_limits<float>::infinity();
  constexpr std::int32_t imax = std::numeric_limits<std::int32_t>::max();
  constexpr std::int32_t imin = std::numeric_limits<std::int32_t>::min();

  // float -> int: truncation toward zero, NaN -> 0, saturation.
  STATIC_REQUIRE(convert<std::int32_t>(2.9f) == 2);
  STATIC_REQUIRE(convert<std::int32_t>(-2.9f) == -2);
  STATIC_REQUIRE(convert<std::int32_t>(-0.5f) == 0);
  STATIC_REQUIRE(convert<std::int32_t>(nan) == 0);
  STATIC_REQUIRE(convert<std::int32_t>(inf) == imax);
  STATIC_REQUIRE(convert<std::int32_t>(-inf) == imin);
  STATIC_REQUIRE(convert<std::int32_t>(1e10f) == imax);
  STATIC_REQUIRE(convert<std::int32_t>(-1e10f) == imin);
  STATIC_REQUIRE(convert<std::int32_t>(2147483648.0f) == imax);  // 2^31: first out of range
  STATIC_REQUIRE(convert<std::int32_t>(2147483520.0f) == 2147483520);  // largest float below
  STATIC_REQUIRE(convert<std::int32_t>(-2147483648.0f) == imin);  // exactly representable
  STATIC_REQUIRE(convert<std::int32_t>(-2147483904.0f) == imin);  // next float below
  STATIC_REQUIRE(convert<std::uint32_t>(-1.0f) == 0u);
  STATIC_REQUIRE(convert<std::uint32_t>(-0.99f) == 0u);
  STATIC_REQUIRE(convert<std::uint32_t>(4294967296.0f) == 4294967295u);
  STATIC_REQUIRE(convert<std::uint32_t>(4294967040.0f) == 4294967040u);
  STATIC_REQUIRE(convert<std::uint32_t>(nan) == 0u);
  STATIC_REQUIRE(convert<std::int8_t>(127.9f) == 127);
  STATIC_REQUIRE(convert<std::int8_t>(128.0f) == 127);
  STATIC_REQUIRE(convert<std::int8_t>(-128.9f) == -128);
  STATIC_REQUIRE(convert<std::int8_t>(-129.0f) == -128);
  STATIC_REQUIRE(convert<std::int16_t>(-40000.0f) == -32768);
  STATIC_REQUIRE(convert<std::int16_t>(bfloat16(-3.75f)) == -3);
  STATIC_REQUIRE(convert<std::int16_t>(float16(65504.0f)) == 32767);
  STATIC_REQUIRE(convert<std::int8_t>(std::numeric_limits<bfloat16>::quiet_NaN()) == 0);
  STATIC_REQUIRE(convert<std::uint32_t>(-std::numeric_limits<float16>::infinity()) == 0u);
  STATIC_REQUIRE(convert<std::int32_t>(std::numeric_limits<bfloat16>::max()) == imax);

  // int -> int: modular.
  STATIC_REQUIRE(convert<std::int8_t>(std::int32_t{300}) == 44);
  STATIC_REQUIRE(convert<std::int8_t>(std::int32_t{-129}) == 127);
  STATIC_REQUIRE(convert<std::int32_t>(std::uint32_t{0xFFFFFFFFu}) == -1);
  STATIC_REQUIRE(convert<std::uint32_t>(std::int8_t{-1}) == 0xFFFFFFFFu);
  STATIC_REQUIRE(convert<std::int16_t>(std::int8_t{-5}) == -5);

  // to and from bool.
  STATIC_REQUIRE(convert<bool>(nan) == true);
  STATIC_REQUIRE(convert<bool>(-0.0f) == false);
  STATIC_REQUIRE(convert<bool>(0x1p-149f) == true);
  STATIC_REQUIRE(convert<bool>(bfloat16(0.5f)) == true);
  STATIC_REQUIRE(convert<bool>(float16(-0.0f)) == false);
  STATIC_REQUIRE(convert<bool>(std::int8_t{-1}) == true);
  STATIC_REQUIRE(convert<bool>(std::uint32_t{0}) == false);
  STATIC_REQUIRE(convert<float>(true) == 1.0f);
  STATIC_REQUIRE(convert<bfloat16>(true).bits() == 0x3F80);
  STATIC_REQUIRE(convert<float16>(false).bits() == 0x0000);
  STATIC_REQUIRE(convert<std::uint32_t>(true) == 1u);
  STATIC_REQUIRE(convert<bool>(true) == true);

  // int -> float: round to nearest even.
  STATIC_REQUIRE(convert<float>(std::int32_t{16777217}) == 16777216.0f);
  STATIC_REQUIRE(convert<float>(std::uint32_t{0xFFFFFFFFu}) == 4294967296.0f);
  STATIC_REQUIRE(convert<bfloat16>(std::int32_t{257}).bits() == bfloat16(256.0f).bits());
  STATIC_REQUIRE(convert<bfloat16>(std::int32_t{259}).bits() == bfloat16(260.0f).bits());
  STATIC_REQUIRE(convert<float16>(std::int32_t{2049}).bits() == float16(2048.0f).bits());
  STATIC_REQUIRE(convert<float16>(std::int16_t{-32767}).bits() == float16(-32768.0f).bits());
  STATIC_REQUIRE(convert<float16>(std::int32_t{65520}).bits() == 0x7C00);
  STATIC_REQUIRE(convert<float16>(std::uint32_t{65519}).bits() == 0x7BFF);

  // float <-> float.
  STATIC_REQUIRE(convert<float16>(bfloat16(1e10f)).bits() == 0x7C00);
  STATIC_REQUIRE(convert<bfloat16>(float16(65504.0f)).bits() == bfloat16(65536.0f).bits());
  STATIC_REQUIRE(convert<bfloat16>(float16::from_bits(0x0001)).bits() == bfloat16(0x1p-24f).bits());
  STATIC_REQUIRE(convert<float16>(bfloat16(0x1p-30f)).bits() == 0x0000);
  STATIC_REQUIRE(convert<float>(float16::from_bits(0x03FF)) == 0x3FFp-24f);
  STATIC_REQUIRE(convert<float16>(1.0f / 3.0f).bits() == 0x3555);
  STATIC_REQUIRE(pallas::isnan(convert<float16>(std::numeric_limits<bfloat16>::quiet_NaN())));
  STATIC_REQUIRE(convert<bfloat16>(-std::numeric_limits<float16>::infinity()).bits() == 0xFF80);
  STATIC_REQUIRE(std::is_same_v<decltype(convert<float16>(1.0f)), float16>);

  // Exhaustive over 16-bit sources: float16 -> every other dtype vs the reference.
  failures fail;
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const auto x = float16::from_bits(static_cast<std::uint16_t>(h));
    const double v = ref_decode_f16(static_cast<std::uint16_t>(h));
    check_rounding(fail, "f16->bf16", v, convert<bfloat16>(x), ref_bf16(v));
    const double t = std::isnan(v) ? 0.0 : std::trunc(v);
    const double want16 = t >= 32768 ? 32767.0 : t <= -32769 ? -32768.0 : t;
    if (convert<std::int16_t>(x) != want16) fail.add("f16->int16 " + hex(h));
    const double want8 = t >= 128 ? 127.0 : t <= -129 ? -128.0 : t;
    if (convert<std::int8_t>(x) != want8) fail.add("f16->int8 " + hex(h));
    const double wantu = t < 0 ? 0.0 : t >= 4294967296.0 ? 4294967295.0 : t;
    if (convert<std::uint32_t>(x) != wantu) fail.add("f16->uint32 " + hex(h));
    if (convert<bool>(x) != (v != 0)) fail.add("f16->bool " + hex(h));
    const auto b = bfloat16::from_bits(static_cast<std::uint16_t>(h));
    const double vb = ref_decode_bf16(static_cast<std::uint16_t>(h));
    check_rounding(fail, "bf16->f16", vb, convert<float16>(b), ref_f16(vb));
    const double tb = std::isnan(vb) ? 0.0 : std::trunc(vb);
    const double want32 = tb >= 2147483648.0 ? 2147483647.0 : tb <= -2147483649.0 ? -2147483648.0 : tb;
    if (convert<std::int32_t>(b) != want32) fail.add("bf16->int32 " + hex(h));
  }
  fail.report();
}

TEST_CASE("dtype: bfloat16 and float16 are structural (usable as template arguments)",
          "[dtype]") {
  constexpr auto one = bfloat16(1.0f);
  auto f = []<bfloat16 V, float16 W>() { return static_cast<float>(V) + static_cast<float>(W); };
  CHECK(f.template operator()<one, float16(2.0f)>() == 3.0f);
}
