// Physical quantities used across Sluice and their text forms ("40Gbps", "96KiB", "5us").
#pragma once
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <systemc>

namespace sluice {

// `text` as one printable line: control characters (newline, tab, ESC, DEL, ...) and bytes that
// are not valid UTF-8 become \n, \t or \xNN escapes; valid UTF-8 (the micro sign) is kept.
std::string printable(const std::string& text);
// True if `text` is well-formed UTF-8 (no overlong forms, surrogates or code points > U+10FFFF).
bool valid_utf8(const std::string& text);

// Every user-facing error (scenario, parameter, CLI) is a config_error with a one-line message
// that names the offending key and value. The message is passed through printable(), so a
// value that echoes user text (a name with a newline, say) never breaks it over two lines.
class config_error : public std::runtime_error {
 public:
  explicit config_error(const std::string& message) : std::runtime_error(printable(message)) {}
};

// Link and flow rates, in bit/s.
struct data_rate {
  double bps = 0.0;
  // Serialization time of `bytes` at this rate, rounded to the kernel's 1 ps resolution.
  sc_core::sc_time serialization(uint64_t bytes) const;
  // The same in picoseconds, inline: per-frame code that works in ps avoids building an sc_time
  // (an out-of-line library call). bits / bps seconds = bits * 1e12 / bps ps, rounded to the
  // nearest picosecond (exact for the usual rates: 1500 B at 40 Gb/s is 300000 ps).
  uint64_t serialization_ps(uint64_t bytes) const {
    return static_cast<uint64_t>(static_cast<double>(bytes) * 8e12 / bps + 0.5);
  }
  friend bool operator==(data_rate a, data_rate b) { return a.bps == b.bps; }
  friend bool operator<(data_rate a, data_rate b) { return a.bps < b.bps; }
};

// Buffer sizes and thresholds, in bytes.
struct byte_count {
  uint64_t bytes = 0;
  friend bool operator==(byte_count a, byte_count b) { return a.bytes == b.bytes; }
  friend bool operator<(byte_count a, byte_count b) { return a.bytes < b.bytes; }
};

// The rates a link or a flow may have: 1 Kb/s to 10 Tb/s.
constexpr data_rate min_rate{1e3}, max_rate{1e13};

// Parsers throw config_error naming `what` (the key being parsed) and the text.
data_rate parse_rate(const std::string& text, const std::string& what = "rate");  // any positive rate
data_rate parse_link_rate(const std::string& text, const std::string& what);      // within [min_rate, max_rate]
byte_count parse_bytes(const std::string& text, const std::string& what = "size");
sc_core::sc_time parse_time(const std::string& text, const std::string& what = "time");
double parse_number(const std::string& text, const std::string& what = "value");
uint64_t parse_count(const std::string& text, const std::string& what = "count");
bool parse_bool(const std::string& text, const std::string& what = "flag");

std::string format_rate(data_rate r);
std::string format_bytes(byte_count b);
std::string format_time(const sc_core::sc_time& t);
std::string format_number(double v);

// Picoseconds of an sc_time (the kernel runs at 1 ps resolution).
inline uint64_t to_ps(const sc_core::sc_time& t) { return t.value(); }
// An sc_time of `ps` picoseconds. Not sc_time::from_value: that is out of line in the SystemC
// library (it marks the resolution fixed on every call, ~30 instructions), and every frame-hop
// builds three of these (docs/performance-history.md). The resolution is pinned to 1 ps once, when the
// event queue is made (event_queue's constructor), so the bits of an sc_time are picoseconds.
inline sc_core::sc_time from_ps(uint64_t ps) {
  sc_core::sc_time t;
  static_assert(sizeof t == sizeof ps, "sc_time holds its value and nothing else");
  std::memcpy(static_cast<void*>(&t), &ps, sizeof ps);
  return t;
}

}  // namespace sluice
