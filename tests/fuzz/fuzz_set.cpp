// Fuzzes what a user types as a value: the unit parsers (rates, sizes, times, numbers, counts,
// flags), `--set PATH=VALUE` (split, glob, parse and range check against parameters of every
// value type), the run options (--until, --sample-period, --seed, --cc, --trace-frames, --vcd
// with --trace and --trace-window, --pcap with --capture, --capture-kinds and --capture-window),
// the frame-trace filter (against a few flows) and the capture's kind list and time window. The
// first byte picks the parser, the rest is the text. Bad input must be a config_error with a
// one-line message; a parsed size or count must print and parse back to itself, a parsed window
// must end after it starts.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "models/core/params.h"
#include "platforms/frame_capture.h"
#include "platforms/frame_trace.h"
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

// Flows a frame-trace filter may name, by id or name.
const flow_table& some_flows() {
  static const flow_table flows = [] {
    flow_table t(3);
    const char* names[] = {"f0", "bulk", "2"};  // "2" is flow 2's name and flow 2's id
    for (uint32_t i = 0; i < t.size(); ++i) {
      t[i].id = i;
      t[i].spec.name = names[i];
    }
    return t;
  }();
  return flows;
}

void fuzz_one(uint8_t which, const std::string& text) {
  static test::one_param_each params;  // what --set patterns match
  switch (which % 12) {
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
    case 9: {  // the run options, one per line (a line present sets its option)
      run_request r;
      std::size_t at = 0;
      auto next = [&](std::optional<std::string>& option) {
        if (at <= text.size()) option = line(text, at);
      };
      auto next_list = [&](std::vector<std::string>& list) {
        if (at <= text.size()) list.push_back(line(text, at));
      };
      r.until = line(text, at);
      next(r.sample_period);
      next(r.seed);
      next(r.cc);
      next(r.trace_frames);
      next(r.vcd);
      next_list(r.trace);
      next(r.trace_window);
      next(r.pcap);
      next_list(r.capture);
      next(r.capture_kinds);
      next(r.capture_window);
      const run_options o = parse_run_request(r, "--");
      check(o.waveform.from_ps < o.waveform.to_ps && o.capture.from_ps < o.capture.to_ps);
      break;
    }
    case 10:  // a frame-trace filter
      frame_trace_filter::parse(text, some_flows(), "--trace-frames");
      break;
    default: {  // a capture's frame kinds, then its window
      std::size_t at = 0;
      const std::string kinds = line(text, at);
      check(parse_capture_kinds(kinds, "--capture-kinds") != 0);
      if (at <= text.size()) {
        const auto [from, to] = parse_capture_window(text.substr(at), "--capture-window");
        check(from < to);
      }
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
