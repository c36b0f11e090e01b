// Fuzzes what a user types as a value: the unit parsers (rates, sizes, times, numbers, counts,
// flags), `--set PATH=VALUE` (split, glob, parse and range check against parameters of every
// value type) and the run options (--until, --sample-period, --seed, --cc). The first byte picks
// the parser, the rest is the text. Bad input must be a config_error with a one-line message;
// a parsed size or count must print and parse back to itself.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "models/core/params.h"
#include "platforms/run_request.h"
#include "tests/support/one_param_each.h"

using namespace sluice;

namespace {

void check(bool ok) {
  if (!ok) std::abort();  // a broken property is a finding, like a crash
}

std::string line(const std::string& text, std::size_t& at) {
  const std::size_t end = std::min(text.find('\n', at), text.size());
  std::string out = text.substr(at, end - at);
  at = end + 1;
  return out;
}

void fuzz_one(uint8_t which, const std::string& text) {
  static test::one_param_each params;  // what --set patterns match
  switch (which % 10) {
    case 0:
      parse_rate(text, "rate");
      break;
    case 1:
      parse_link_rate(text, "rate");
      break;
    case 2: {
      const byte_count b = parse_bytes(text, "size");
      check(parse_bytes(format_bytes(b), "size") == b);
      break;
    }
    case 3:
      parse_time(text, "time");
      break;
    case 4:
      parse_number(text, "value");
      break;
    case 5: {
      const uint64_t n = parse_count(text, "count");
      check(parse_count(std::to_string(n), "count") == n);
      break;
    }
    case 6:
      parse_bool(text, "flag");
      break;
    case 7: {  // --set PATH=VALUE against the parameters above
      const auto [pattern, value] = split_set_argument(text, "--set");
      param_registry::instance().set(pattern, value, false);
      break;
    }
    case 8: {  // the glob alone: PATTERN\nNAME
      std::size_t at = 0;
      const std::string pattern = line(text, at), name = at <= text.size() ? text.substr(at) : "";
      const bool match = glob_match(pattern.c_str(), name.c_str());
      if (pattern.find_first_of("*?") == std::string::npos)
        check(match == (std::string(pattern.c_str()) == name.c_str()));
      check(glob_match("*", name.c_str()));
      break;
    }
    default: {  // the run options, one per line
      run_request r;
      std::size_t at = 0;
      r.until = line(text, at);
      if (at <= text.size()) r.sample_period = line(text, at);
      if (at <= text.size()) r.seed = line(text, at);
      if (at <= text.size()) r.cc = line(text, at);
      parse_run_request(r, "--");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    fuzz_one(data[0], text);
  } catch (const config_error& e) {
    check(std::string(e.what()).find('\n') == std::string::npos);
  }
  return 0;
}
