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

namespace sluice::csv_number {

// Each writes its text at out (at most the _max characters) and returns the end of it. The
// bytes after the text, up to the _max characters, may be overwritten.
constexpr std::size_t fixed3_max = 330;  // a sign, 309 digits of the largest double, ".ddd"
constexpr std::size_t general6_max = 16;
char* fixed3(char* out, double v);    // "%.3f"
char* general6(char* out, double v);  // "%.6g"

}  // namespace sluice::csv_number
