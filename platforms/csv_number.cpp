#include "platforms/csv_number.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace sluice::csv_number {
namespace {

constexpr double pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                            1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};  // exact
// A scaled value this close to a rounding boundary goes the long way. The scaled values are
// below 1e9, where one rounding errs by less than 1e-7.
constexpr double margin = 1e-6;

// Room for any double in fixed notation (std::to_chars's fallback).
char* slow(char* out, double v, std::chars_format format, int precision) {
  char buf[400];
  const char* end = std::to_chars(buf, buf + sizeof buf, v, format, precision).ptr;
  const std::size_t n = static_cast<std::size_t>(end - buf);
  std::memcpy(out, buf, n);
  return out + n;
}

// The value of s (>= 0, below 1e9) rounded to an integer, if s is clear of a tie: false
// otherwise.
bool round_clear(double s, uint64_t& r) {
  const int64_t whole = static_cast<int64_t>(s);  // floor for s >= 0, without a call to floor
  const double frac = s - static_cast<double>(whole);
  if (frac > 0.5 - margin && frac < 0.5 + margin) return false;
  r = static_cast<uint64_t>(whole) + (frac > 0.5 ? 1 : 0);
  return true;
}

char* digits(char* out, uint64_t v) { return std::to_chars(out, out + 20, v).ptr; }

// "00" to "99": two digits a lookup, a third of the divisions by ten.
struct digit_pairs {
  char text[200];
};
constexpr digit_pairs make_pairs() {
  digit_pairs p{};
  for (int i = 0; i < 100; ++i) {
    p.text[2 * i] = static_cast<char>('0' + i / 10);
    p.text[2 * i + 1] = static_cast<char>('0' + i % 10);
  }
  return p;
}
constexpr digit_pairs pairs = make_pairs();
void put2(char* out, unsigned v) { std::memcpy(out, pairs.text + 2 * v, 2); }

}  // namespace

char* fixed3(char* out, double v) {
  const double a = std::fabs(v);
  uint64_t r = 0;
  if (!(a < 1e6) || !round_clear(a * 1e3, r)) return slow(out, v, std::chars_format::fixed, 3);
  if (std::signbit(v)) *out++ = '-';  // printf prints -0.000 for a negative value that rounds to 0
  out = digits(out, r / 1000);
  const unsigned f = static_cast<unsigned>(r % 1000);
  out[0] = '.';
  out[1] = static_cast<char>('0' + f / 100);
  out[2] = static_cast<char>('0' + f / 10 % 10);
  out[3] = static_cast<char>('0' + f % 10);
  return out + 4;
}

char* general6(char* out, double v) {
  if (v == 0) {
    if (std::signbit(v)) *out++ = '-';
    *out++ = '0';
    return out;
  }
  const double a = std::fabs(v);
  if (!(a >= 1e-15 && a < 1e21)) return slow(out, v, std::chars_format::general, 6);
  // x: the decimal exponent of a, from its binary one (floor(e2 log10 2), or one more).
  uint64_t bits;
  std::memcpy(&bits, &a, sizeof bits);
  const int e2 = static_cast<int>(bits >> 52) - 1023;
  int x = (e2 * 1233) >> 12;
  // s: a scaled to six digits before the point, by an exact power of ten (one rounding).
  auto scaled = [a](int x) { return x <= 5 ? a * pow10[5 - x] : a / pow10[x - 5]; };
  double s = scaled(x);
  if (s > 999999.5 - margin && s < 999999.5 + margin) return slow(out, v, std::chars_format::general, 6);
  if (s >= 999999.5) s = scaled(++x);  // rounds up to 10^(x+1): the exponent after rounding is x + 1
  uint64_t r = 0;
  if (!(s >= 99999.5 + margin && s < 999999.5 - margin) || !round_clear(s, r))
    return slow(out, v, std::chars_format::general, 6);
  // (A just below 10^x has s in [99999.5, 100000) and rounds up to 1.00000e x: x is the
  // exponent after rounding, the one %g decides by.)
  // The six digits of r (100000 to 999999) as three pairs, and the last significant one (%g
  // drops trailing zeros) from the pairs' values. Copies below are of fixed size, for no call
  // to memcpy: they may write past the text, within general6_max.
  const unsigned r6 = static_cast<unsigned>(r), high = r6 / 10000, middle = r6 / 100 % 100, low = r6 % 100;
  char d[16] = {};
  put2(d, high);
  put2(d + 2, middle);
  put2(d + 4, low);
  const int last = low != 0 ? 5 - (low % 10 == 0) : middle != 0 ? 3 - (middle % 10 == 0) : 1 - (high % 10 == 0);
  if (v < 0) *out++ = '-';
  if (x < -4 || x >= 6) {  // d.ddddde+xx; here |x| <= 21: two exponent digits
    out[0] = d[0];
    out[1] = '.';
    std::memcpy(out + 2, d + 1, 5);
    out += last > 0 ? last + 2 : 1;
    out[0] = 'e';
    out[1] = x < 0 ? '-' : '+';
    put2(out + 2, static_cast<unsigned>(x < 0 ? -x : x));
    return out + 4;
  }
  if (x >= 0) {  // x + 1 digits before the point
    std::memcpy(out, d, 8);
    if (last <= x) return out + x + 1;
    out[x + 1] = '.';
    std::memcpy(out + x + 2, d + x + 1, 5);
    return out + last + 2;
  }
  std::memcpy(out, "0.0000", 6);  // 0.000ddd: 1 - x characters before the digits
  std::memcpy(out + 1 - x, d, 8);
  return out + 1 - x + last + 1;
}

}  // namespace sluice::csv_number
