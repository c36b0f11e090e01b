// ASM's 8-bit feedback fields (Qoff, Qdelta): the one place the code is defined, read by the
// congestion point (encode) and the reaction point (decode). See docs/models/asm.md.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>

namespace sluice {

// The 8-bit field: a signed code of +/-127 steps, companded so that one byte carries both the
// fine steps near 0 that sliding needs and the range of a start-up overload: linear up to
// `linear` steps of `quantum` bytes, logarithmic beyond (each step x 2^(1/22), about the linear
// step at the joint), to 32 x 2^(95/22) = 638 quanta at code 127.
struct asm_field {
  static constexpr int linear = 32;
  static constexpr double per_octave = 22;
  // v bytes -> code: nearest (halves away from zero), saturated at +/-127 (never -128).
  static int8_t encode(int64_t v, uint64_t quantum) {
    const double x = std::fabs(static_cast<double>(v)) / static_cast<double>(quantum);
    const long steps = x <= linear + 0.5 ? std::lround(x) : std::lround(linear + per_octave * std::log2(x / linear));
    const long c = std::min(steps, 127L);
    return static_cast<int8_t>(v < 0 ? -c : c);
  }
  // code -> bytes (what the reaction point reads).
  static double decode(int8_t code, double quantum) {
    const int c = code < 0 ? -code : code;
    const double x = c <= linear ? c : linear * std::exp2((c - linear) / per_octave);
    return (code < 0 ? -x : x) * quantum;
  }
};

}  // namespace sluice
