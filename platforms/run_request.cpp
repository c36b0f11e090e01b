#include "platforms/run_request.h"

#include <algorithm>

#include "models/cc/scheme.h"
#include "platforms/profiles.h"

namespace sluice {

run_options parse_run_request(const run_request& r, const std::string& prefix) {
  // "--sample-period" on the command line, "sample_period" as a Python keyword.
  auto key = [&](std::string name) {
    if (prefix.empty()) std::replace(name.begin(), name.end(), '-', '_');
    return prefix + name;
  };
  // An empty value ('--until ""') is an error, not "no option".
  for (const auto& [name, value] :
       {std::pair{"until", &r.until}, std::pair{"sample-period", &r.sample_period}, std::pair{"seed", &r.seed},
        std::pair{"cc", &r.cc}, std::pair{"profile", &r.profile}})
    if (*value && (*value)->empty()) throw config_error(key(name) + ": '' is empty");
  run_options opts;
  opts.sets_origin = key("set");
  for (const auto& [pattern, value] : r.sets) {
    if (pattern.empty() || value.empty())
      throw config_error(key("set") + ": '" + pattern + "=" + value + "' must look like PATH=VALUE");
    opts.sets.emplace_back(pattern, value);
  }
  if (r.sample_period) {
    opts.sample_period = parse_time(*r.sample_period, key("sample-period"));
    if (*opts.sample_period == sc_core::SC_ZERO_TIME) throw config_error(key("sample-period") + ": must be positive");
  }
  if (r.until) {
    opts.until = parse_time(*r.until, key("until"));
    if (*opts.until == sc_core::SC_ZERO_TIME) throw config_error(key("until") + ": must be positive");
  }
  if (r.seed) opts.seed = parse_count(*r.seed, key("seed"));
  if (r.cc) opts.cc = cc_scheme_registry::instance().named(*r.cc, key("cc")).name;
  opts.cc_key = key("cc");
  if (r.profile) opts.profile = hardware_profile_named(*r.profile, key("profile")).name;
  opts.allow_inert = r.allow_inert;
  opts.allow_inert_key = key("allow-inert");
  if (r.trace_frames) {
    if (r.trace_frames->empty()) throw config_error(key("trace-frames") + ": '' is empty");
    opts.trace_frames = *r.trace_frames;
    opts.trace_frames_key = key("trace-frames");
  }
  if (r.vcd) {
    if (r.vcd->empty()) throw config_error(key("vcd") + ": '' is empty");
    if (r.trace.empty())
      throw config_error(key("vcd") + ": needs " + key("trace") +
                         " PATTERNS (signal names, globs: 'sw0.port4.prio3.queue_bytes', '*.paused')");
    opts.waveform.path = *r.vcd;
    for (const std::string& t : r.trace)  // each may hold several, joined by ','
      for (std::size_t at = 0, comma; at <= t.size(); at = comma + 1) {
        comma = std::min(t.find(',', at), t.size());
        if (comma > at) opts.waveform.patterns.push_back(t.substr(at, comma - at));
      }
    if (r.trace_window)
      std::tie(opts.waveform.from_ps, opts.waveform.to_ps) = parse_capture_window(*r.trace_window, key("trace-window"));
  } else {
    if (!r.trace.empty()) throw config_error(key("trace") + ": needs " + key("vcd") + " FILE");
    if (r.trace_window) throw config_error(key("trace-window") + ": needs " + key("vcd") + " FILE");
  }
  if (r.pcap) {
    if (r.pcap->empty()) throw config_error(key("pcap") + ": '' is empty");
    if (r.capture.empty())
      throw config_error(key("pcap") + ": needs " + key("capture") + " PORTS (port names, globs: sw0.port4, h*)");
    opts.capture.dir = *r.pcap;
    opts.capture.ports = r.capture;
    if (r.capture_kinds) opts.capture.kinds = parse_capture_kinds(*r.capture_kinds, key("capture-kinds"));
    if (r.capture_window)
      std::tie(opts.capture.from_ps, opts.capture.to_ps) =
          parse_capture_window(*r.capture_window, key("capture-window"));
  } else {
    if (!r.capture.empty()) throw config_error(key("capture") + ": needs " + key("pcap") + " DIR");
    if (r.capture_kinds) throw config_error(key("capture-kinds") + ": needs " + key("pcap") + " DIR");
    if (r.capture_window) throw config_error(key("capture-window") + ": needs " + key("pcap") + " DIR");
  }
  if (r.store) {
    if (r.store->empty()) throw config_error(key("store") + ": '' is empty");
    opts.store.path = *r.store;
    opts.store.key = key("store");
    opts.store.series = r.store_series;
    if (r.store_tags) {
      const nlohmann::json tags = nlohmann::json::parse(*r.store_tags, nullptr, false);
      if (!tags.is_object()) throw config_error(key("store-tags") + ": '" + *r.store_tags + "' is not a JSON object");
      opts.store.tags = tags.dump();
    }
  } else {
    if (r.store_series) throw config_error(key("store-series") + ": needs " + key("store") + " FILE");
    if (r.store_tags) throw config_error(key("store-tags") + ": needs " + key("store") + " FILE");
  }
  if (r.window_partitions) {
    const uint64_t parts = parse_count(*r.window_partitions, key("window-partitions"));
    if (parts < 1 || parts > max_window_partitions)
      throw config_error(key("window-partitions") + ": '" + *r.window_partitions + "' is not from 1 to " +
                         std::to_string(max_window_partitions));
    opts.window_partitions = static_cast<int>(parts);
    opts.window_partitions_key = key("window-partitions");
    // What a run writes in the order its events happen: the partitions run a window each in turn.
    for (const auto& [name, value] :
         {std::pair{"pcap", &r.pcap}, std::pair{"trace-frames", &r.trace_frames}, std::pair{"vcd", &r.vcd}})
      if (*value && parts > 1)
        throw config_error(key(name) + ": not with " + key("window-partitions") +
                           " (written in event order; docs/parallel.md)");
  }
  if (r.window_threads) {
    const uint64_t threads = parse_count(*r.window_threads, key("window-threads"));
    if (threads < 1 || threads > max_window_threads)
      throw config_error(key("window-threads") + ": '" + *r.window_threads + "' is not from 1 to " +
                         std::to_string(max_window_threads));
    if (!r.window_partitions || (threads > 1 && opts.window_partitions < 2))  // else it would change nothing
      throw config_error(key("window-threads") + ": '" + *r.window_threads + "' needs " + key("window-partitions") +
                         " 2 or more");
    if (threads > static_cast<uint64_t>(opts.window_partitions))
      throw config_error(key("window-threads") + ": '" + *r.window_threads + "' is more than the " +
                         std::to_string(opts.window_partitions) + " " + key("window-partitions"));
    opts.window_threads = static_cast<int>(threads);
  }
  if (r.partition_method) {
    if (opts.window_partitions < 2)
      throw config_error(key("partition-method") + ": '" + *r.partition_method + "' needs " + key("window-partitions") +
                         " 2 or more");
    opts.partition_method = *r.partition_method;
  }
  return opts;
}

std::pair<std::string, std::string> split_set_argument(const std::string& text, const std::string& key) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw config_error(key + ": '" + text + "' must look like PATH=VALUE");
  return {text.substr(0, eq), text.substr(eq + 1)};
}

}  // namespace sluice
