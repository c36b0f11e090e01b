#include "models/core/units.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <utility>

namespace sluice {
namespace {

// The length of the UTF-8 sequence starting at s[i], or 0 if it is not well formed.
std::size_t utf8_length(const std::string& s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  if (c < 0x80) return 1;
  std::size_t n = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  const unsigned char c1 = byte(i + 1);
  if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 > 0x9F) || (c == 0xF0 && c1 < 0x90) || (c == 0xF4 && c1 > 0x8F))
    return 0;  // overlong, surrogate or beyond U+10FFFF
  return n;
}

}  // namespace

bool valid_utf8(const std::string& text) {
  for (std::size_t i = 0, n; i < text.size(); i += n)
    if ((n = utf8_length(text, i)) == 0) return false;
  return true;
}

std::string printable(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    std::size_t n = utf8_length(text, i);
    if (n > 1) {
      out.append(text, i, n);
      i += n;
      continue;
    }
    if (c == '\n')
      out += "\\n";
    else if (c == '\t')
      out += "\\t";
    else if (c == '\r')
      out += "\\r";
    else if (n == 0 || c < 0x20 || c == 0x7F) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
    ++i;
  }
  return out;
}

namespace {

// Splits "40Gbps" into 40 and "Gbps". Rejects empty, non-finite and trailing garbage, and
// accepts decimal notation only: strtod also reads hexadecimal ("0x10"), "inf" and "nan".
std::pair<double, std::string> split_number(const std::string& text, const std::string& what) {
  std::size_t start = 0;
  const auto blank = [](char c) { return c == ' ' || c == '\t'; };  // not newlines: one value, one line
  while (start < text.size() && blank(text[start])) ++start;
  const char* begin = text.c_str() + start;
  char* end = nullptr;
  double value = std::strtod(begin, &end);
  if (end == begin || !std::isfinite(value)) throw config_error(what + ": '" + text + "' is not a number with a unit");
  if (std::string(begin, static_cast<std::size_t>(end - begin)).find_first_not_of("0123456789.eE+-") !=
      std::string::npos)
    throw config_error(what + ": '" + text + "' is not a decimal number (hexadecimal, inf and nan are not accepted)");
  std::string unit(end);
  while (!unit.empty() && blank(unit.front())) unit.erase(0, 1);
  while (!unit.empty() && blank(unit.back())) unit.pop_back();
  return {value, unit};
}

}  // namespace

sc_core::sc_time data_rate::serialization(uint64_t bytes) const { return from_ps(serialization_ps(bytes)); }

namespace {

struct unit_scale {
  const char* name;
  double scale;
};

// The scale of `unit` in `table`, or 0 if it is not there.
template <std::size_t N>
double scale_of(const std::string& unit, const unit_scale (&table)[N]) {
  for (const unit_scale& u : table)
    if (unit == u.name) return u.scale;
  return 0;
}

constexpr unit_scale rate_units[] = {{"bps", 1},    {"b/s", 1},    {"Kbps", 1e3},  {"kbps", 1e3},
                                     {"Kb/s", 1e3}, {"kb/s", 1e3}, {"Mbps", 1e6},  {"Mb/s", 1e6},
                                     {"Gbps", 1e9}, {"Gb/s", 1e9}, {"Tbps", 1e12}, {"Tb/s", 1e12}};
constexpr unit_scale size_units[] = {{"B", 1},    {"", 1},       {"KB", 1e3},      {"kB", 1e3},        {"MB", 1e6},
                                     {"GB", 1e9}, {"KiB", 1024}, {"MiB", 1048576}, {"GiB", 1073741824}};
constexpr unit_scale time_units[] = {{"ps", 1}, {"ns", 1e3}, {"us", 1e6}, {"\u00b5s", 1e6}, {"ms", 1e9}, {"s", 1e12}};

}  // namespace

data_rate parse_rate(const std::string& text, const std::string& what) {
  auto [v, unit] = split_number(text, what);
  double scale = scale_of(unit, rate_units);
  if (scale == 0) throw config_error(what + ": '" + text + "' needs a rate unit (bps, Kbps, Mbps, Gbps, Tbps)");
  if (v <= 0) throw config_error(what + ": '" + text + "' must be a positive rate");
  return data_rate{v * scale};
}

data_rate parse_link_rate(const std::string& text, const std::string& what) {
  data_rate r = parse_rate(text, what);
  if (r < min_rate || max_rate < r)
    throw config_error(what + ": '" + text + "' is outside the valid range [" + format_rate(min_rate) + ", " +
                       format_rate(max_rate) + "]");
  return r;
}

byte_count parse_bytes(const std::string& text, const std::string& what) {
  auto [v, unit] = split_number(text, what);
  double scale = scale_of(unit, size_units);
  if (scale == 0) throw config_error(what + ": '" + text + "' needs a size unit (B, KB, KiB, MB, MiB, GB, GiB)");
  if (v < 0) throw config_error(what + ": '" + text + "' must not be negative");
  double bytes = v * scale;
  if (bytes > 1e18) throw config_error(what + ": '" + text + "' is too large (at most 1e18 bytes)");
  if (bytes != std::floor(bytes)) throw config_error(what + ": '" + text + "' is not a whole number of bytes");
  return byte_count{static_cast<uint64_t>(bytes)};
}

sc_core::sc_time parse_time(const std::string& text, const std::string& what) {
  auto [v, unit] = split_number(text, what);
  double ps_per_unit = unit.empty() && v == 0 ? 1 : scale_of(unit, time_units);
  if (ps_per_unit == 0) throw config_error(what + ": '" + text + "' needs a time unit (ps, ns, us, ms, s)");
  if (v < 0) throw config_error(what + ": '" + text + "' must not be negative");
  // sc_time holds 2^64 ps (about 213 days); a million seconds is more than any study needs.
  if (v * ps_per_unit > 1e18) throw config_error(what + ": '" + text + "' is too large (at most 1000000s)");
  return from_ps(static_cast<uint64_t>(std::llround(v * ps_per_unit)));
}

double parse_number(const std::string& text, const std::string& what) {
  auto [v, unit] = split_number(text, what);
  if (!unit.empty()) throw config_error(what + ": '" + text + "' must be a plain number");
  return v;
}

uint64_t parse_count(const std::string& text, const std::string& what) {
  std::size_t start = text.find_first_not_of(" \t");
  std::size_t end = text.find_last_not_of(" \t");
  std::string digits = start == std::string::npos ? "" : text.substr(start, end - start + 1);
  if (digits.empty() || digits.size() > 19 || digits.find_first_not_of("0123456789") != std::string::npos)
    throw config_error(what + ": '" + text + "' must be a whole number >= 0");
  return std::stoull(digits);
}

bool parse_bool(const std::string& text, const std::string& what) {
  if (text == "true" || text == "on" || text == "yes" || text == "1") return true;
  if (text == "false" || text == "off" || text == "no" || text == "0") return false;
  throw config_error(what + ": '" + text + "' must be true or false");
}

std::string format_number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

std::string format_rate(data_rate r) {
  const std::pair<double, const char*> units[] = {{1e12, "Tbps"}, {1e9, "Gbps"}, {1e6, "Mbps"}, {1e3, "Kbps"}};
  for (auto [scale, name] : units)
    if (r.bps >= scale) return format_number(r.bps / scale) + name;
  return format_number(r.bps) + "bps";
}

std::string format_bytes(byte_count b) {
  const std::pair<uint64_t, const char*> units[] = {{1ull << 30, "GiB"},   {1ull << 20, "MiB"}, {1ull << 10, "KiB"},
                                                    {1000000000ull, "GB"}, {1000000ull, "MB"},  {1000ull, "KB"}};
  for (auto [scale, name] : units)
    if (b.bytes >= scale && b.bytes % scale == 0) return std::to_string(b.bytes / scale) + name;
  return std::to_string(b.bytes) + "B";
}

std::string format_time(const sc_core::sc_time& t) {
  uint64_t ps = to_ps(t);
  const std::pair<uint64_t, const char*> units[] = {
      {1000000000000ull, "s"}, {1000000000ull, "ms"}, {1000000ull, "us"}, {1000ull, "ns"}};
  for (auto [scale, name] : units)
    if (ps >= scale && ps % scale == 0) return std::to_string(ps / scale) + name;
  for (auto [scale, name] : units)
    if (ps >= scale) return format_number(static_cast<double>(ps) / scale) + name;
  return std::to_string(ps) + "ps";
}

}  // namespace sluice
