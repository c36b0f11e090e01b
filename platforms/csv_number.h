// Numbers for the CSV time series, printed as printf's "%.3f" (times) and "%.6g" (values) print
// them, byte for byte (the same text std::to_chars gives with those precisions).
//
// Why not std::to_chars alone: it is exact for every double and pays for that on each value,
// about 450 instructions here; writing the series was a fifth of a 10 ms incast process. A
// series mostly holds counts and rates of moderate size whose rounding is nowhere near a tie:
// for those the digits come from one scaled product, exact once it lies clear of a rounding
// boundary (its error is below 1e-10, the margin kept is 1e-6). Everything else (a near tie, a
// huge or tiny magnitude, NaN, infinity) goes to std::to_chars.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace sluice::csv_number {

// Each writes its text at out (at most the _max characters) and returns the end of it. The
// bytes after the text, up to the _max characters, may be overwritten.
constexpr std::size_t fixed3_max = 330;  // a sign, 309 digits of the largest double, ".ddd"
constexpr std::size_t general6_max = 16;
char* fixed3(char* out, double v);    // "%.3f"
char* general6(char* out, double v);  // "%.6g"

// general6 with the texts of recent values kept by their bits. A series repeats few values
// (rates are whole frames per sample, fractions of a period in whole frame times, zeros, line
// rates): the 10 ms incast prints 118 000 values, 269 of them distinct, and 256 slots find 97 %
// of its non-zero values. A value found costs a hash and a 16-byte copy (~12 instructions, not
// ~100); one not found, the same plus general6. The text is general6's, byte for byte.
class general6_memo {
 public:
  general6_memo() {
    for (slot& s : slots_) s = slot{0, {'0'}, 1};  // the bits of +0.0, and its text
  }
  char* write(char* out, double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    if (bits == 0) {  // +0.0, the commonest value (idle queues and links, unpaused ports): no hash
      *out = '0';
      return out + 1;
    }
    slot& s = slots_[(bits * 0x9e3779b97f4a7c15u) >> (64 - slot_bits)];  // Fibonacci hashing: every bit counts
    if (s.bits != bits) {
      s.bits = bits;
      s.length = static_cast<uint64_t>(general6(s.text, v) - s.text);
    }
    std::memcpy(out, s.text, general6_max);  // fixed size, no call: general6 may write as far
    return out + s.length;
  }

 private:
  static constexpr int slot_bits = 8;
  struct slot {
    uint64_t bits;
    char text[general6_max];
    uint64_t length;
  };
  slot slots_[1 << slot_bits];
};

}  // namespace sluice::csv_number
