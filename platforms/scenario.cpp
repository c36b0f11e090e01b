#include "platforms/scenario.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "models/cc/scheme.h"
#include "models/core/packet.h"
#include "models/core/params.h"
#include "platforms/builders.h"
#include "platforms/profiles.h"
#include "platforms/provenance.h"
#include "platforms/shipped_files.h"
#include "platforms/workload.h"
#include "platforms/yaml_section.h"

namespace sluice {
namespace {

std::vector<std::string> name_list(const YAML::Node& n, const std::string& path) {
  std::vector<std::string> out;
  if (n.IsScalar())
    out.push_back(n.Scalar());
  else if (n.IsSequence())
    for (const auto& e : n) {
      if (!e.IsScalar()) throw config_error(path + ": expected node names");
      out.push_back(e.Scalar());
    }
  else
    throw config_error(path + ": expected a node name, a glob or a list of them");
  return out;
}

// Expands globs against the NIC names of the topology, in topology order.
std::vector<std::string> match_nics(const topology_spec& t, const std::vector<std::string>& patterns,
                                    const std::string& path) {
  std::vector<std::string> out;
  for (const std::string& pat : patterns) {
    bool any = false;
    for (const node_spec& n : t.nodes) {
      if (!glob_match(pat.c_str(), n.name.c_str())) continue;
      if (n.is_switch) {
        if (pat == n.name) throw config_error(path + ": '" + pat + "' is a switch, not a NIC");
        continue;
      }
      out.push_back(n.name);
      any = true;
    }
    if (!any) throw config_error(path + ": '" + pat + "' matches no NIC");
  }
  return out;
}

// A bound that keeps a typo (count: 99999999999) from exhausting memory instead of failing.
constexpr uint64_t max_flows = 1000000;

uint8_t read_priority(section& t, int classes) {
  uint64_t prio = parse_count(t.text_or("priority", "0"), t.key_path("priority"));
  if (prio >= static_cast<uint64_t>(classes))
    throw config_error(t.key_path("priority") + ": '" + std::to_string(prio) + "' must be 0.." +
                       std::to_string(classes - 1));
  return static_cast<uint8_t>(prio);
}

// `cdf: websearch` and `cdf: fb-hadoop` are the shipped tables; anything else is a path,
// relative to the scenario file's folder.
std::string cdf_path(const std::string& name, const std::string& base_dir) {
  if (name == "websearch" || name == "fb-hadoop")
    return shipped_file("data/" + name + ".txt", std::string(SLUICE_DATA_DIR) + "/" + name + ".txt");
  if (!name.empty() && name[0] == '/') return name;
  return base_dir + "/" + name;
}

// A traffic group's congestion-control scheme (`cc: dcqcn`), "" if none.
std::string read_cc(section& t) {
  if (!t.has("cc")) return "";
  return cc_scheme_registry::instance().named(t.text("cc"), t.key_path("cc")).name;
}

// `load`: a fraction of a link's rate, in (0, 1].
double read_load(section& t) {
  const double load = parse_number(t.text("load"), t.key_path("load"));
  if (!(load > 0 && load <= 1)) throw config_error(t.key_path("load") + ": '" + t.text("load") + "' must be in (0, 1]");
  return load;
}

// kind: workload — src (NICs), dst (NICs to pick from), cdf, load, start, stop, priority.
void read_workload(section& t, std::size_t index, scenario& s, const std::string& base_dir) {
  workload_spec w;
  w.key = "traffic[" + std::to_string(index) + "]";
  w.group = index;
  w.srcs = match_nics(s.topology, name_list(t.get("src"), t.key_path("src")), t.key_path("src"));
  if (!t.has("dst")) throw config_error(t.key_path("dst") + ": missing");
  w.dsts = match_nics(s.topology, name_list(t.get("dst"), t.key_path("dst")), t.key_path("dst"));
  w.cdf_path = cdf_path(t.text("cdf"), base_dir);
  w.load = read_load(t);
  w.start = parse_time(t.text_or("start", "0us"), t.key_path("start"));
  w.stop = parse_time(t.text("stop"), t.key_path("stop"));
  if (!(w.start < w.stop)) throw config_error(t.key_path("stop") + ": must be after start");
  w.priority = read_priority(t, s.topology.classes);
  w.cc = read_cc(t);
  t.finish();
  size_cdf::from_file(w.cdf_path, t.key_path("cdf"));  // fail at load time, not at run time
  s.workloads.push_back(w);
}

uint64_t read_bounded(section& t, const std::string& key, const std::string& fallback, uint64_t min, uint64_t max) {
  const uint64_t v = parse_count(t.text_or(key, fallback), t.key_path(key));
  if (v < min || v > max)
    throw config_error(t.key_path(key) + ": '" + std::to_string(v) + "' must be in [" + std::to_string(min) + ", " +
                       std::to_string(max) + "]");
  return v;
}

// NICs of `key` (names, globs, lists), each at most once: a pattern's flows are per member.
std::vector<std::string> distinct_nics(section& t, const std::string& key, const topology_spec& topo) {
  if (!t.has(key)) throw config_error(t.key_path(key) + ": missing");
  std::vector<std::string> nics = match_nics(topo, name_list(t.get(key), t.key_path(key)), t.key_path(key));
  std::vector<std::string> sorted = nics;
  std::sort(sorted.begin(), sorted.end());
  auto twice = std::adjacent_find(sorted.begin(), sorted.end());
  if (twice != sorted.end()) throw config_error(t.key_path(key) + ": '" + *twice + "' is listed twice");
  return nics;
}

uint64_t positive_bytes(section& t, const std::string& key) {
  const uint64_t b = parse_bytes(t.text(key), t.key_path(key)).bytes;
  if (b == 0) throw config_error(t.key_path(key) + ": '" + t.text(key) + "' must be positive");
  return b;
}

// kind: incast — src (senders to pick from), dst (receivers), cdf or size, load, fan_in_min,
// fan_in_max, start, stop.
void read_incast(section& t, workload_spec& w, const scenario& s, const std::string& base_dir) {
  w.srcs = distinct_nics(t, "src", s.topology);
  w.dsts = distinct_nics(t, "dst", s.topology);
  if (t.has("cdf") == t.has("size"))
    throw config_error(t.key_path("cdf") + ": give either cdf (sizes drawn from it) or size (every flow's), not " +
                       (t.has("cdf") ? "both" : "neither"));
  if (t.has("cdf")) {
    w.cdf_path = cdf_path(t.text("cdf"), base_dir);
    size_cdf::from_file(w.cdf_path, t.key_path("cdf"));  // fail at load time, not at run time
  } else {
    w.size = positive_bytes(t, "size");
  }
  w.load = read_load(t);
  w.fan_in_min = read_bounded(t, "fan_in_min", "1", 1, max_flows);
  w.fan_in_max =
      read_bounded(t, "fan_in_max", std::to_string(std::max<uint64_t>(w.fan_in_min, 15)), w.fan_in_min, max_flows);
  for (const std::string& d : w.dsts) {
    const auto senders = static_cast<uint64_t>(w.srcs.size() - std::count(w.srcs.begin(), w.srcs.end(), d));
    if (senders < w.fan_in_max)
      throw config_error(t.key_path("fan_in_max") + ": '" + std::to_string(w.fan_in_max) + "' exceeds the " +
                         std::to_string(senders) + " senders other than '" + d + "'");
  }
  w.stop = parse_time(t.text("stop"), t.key_path("stop"));
  if (!(w.start < w.stop)) throw config_error(t.key_path("stop") + ": must be after start");
}

// kind: permutation, all-to-all — hosts, size (finite flows, optionally paced at rate) or rate
// alone (constant flows), start.
void read_matrix(section& t, workload_spec& w, const scenario& s) {
  w.srcs = w.dsts = distinct_nics(t, "hosts", s.topology);
  if (w.srcs.size() < 2) throw config_error(t.key_path("hosts") + ": a matrix needs at least two NICs");
  if (w.pattern == workload_pattern::all_to_all && w.srcs.size() * (w.srcs.size() - 1) > max_flows)
    throw config_error(t.key_path("hosts") + ": " + std::to_string(w.srcs.size()) + " NICs all-to-all make more than " +
                       std::to_string(max_flows) + " flows");
  if (!t.has("size") && !t.has("rate"))
    throw config_error(t.key_path("size") + ": missing (or give rate alone, for constant flows)");
  if (t.has("size")) w.size = positive_bytes(t, "size");
  if (t.has("rate")) w.rate = parse_link_rate(t.text("rate"), t.key_path("rate"));
}

// kind: ring-allreduce — hosts (the ring), size (each member's buffer), order, iterations,
// interval, period, start.
void read_ring(section& t, workload_spec& w, const scenario& s) {
  w.srcs = w.dsts = distinct_nics(t, "hosts", s.topology);
  const uint64_t n = w.srcs.size(), steps = 2 * (n - 1);
  if (n < 2) throw config_error(t.key_path("hosts") + ": a ring needs at least two NICs");
  w.size = positive_bytes(t, "size");
  const std::string order = t.text_or("order", "in-order");
  if (order != "in-order" && order != "shuffled")
    throw config_error(t.key_path("order") + ": '" + order + "' is not one of {in-order, shuffled}");
  w.shuffled = order == "shuffled";
  w.iterations = read_bounded(t, "iterations", "1", 1, max_flows);
  if (n * steps * w.iterations > max_flows)
    throw config_error(t.key_path("iterations") + ": " + std::to_string(w.iterations) + " all-reduces of " +
                       std::to_string(n) + " NICs make more than " + std::to_string(max_flows) + " flows");
  // By default a step lasts what its chunk takes on the slowest member's link: the ideal ring.
  data_rate slowest{0};
  for (const std::string& m : w.srcs) {
    const data_rate r = nic_link_rate(s.topology, m);
    if (slowest.bps == 0 || r < slowest) slowest = r;
  }
  w.interval = t.has("interval") ? parse_time(t.text("interval"), t.key_path("interval"))
                                 : slowest.serialization((w.size + n - 1) / n);
  if (w.interval == sc_core::SC_ZERO_TIME) throw config_error(t.key_path("interval") + ": must be positive");
  const sc_core::sc_time all_steps = w.interval * static_cast<double>(steps);
  w.period = t.has("period") ? parse_time(t.text("period"), t.key_path("period")) : all_steps;
  if (w.period < all_steps)
    throw config_error(t.key_path("period") + ": '" + t.text("period") + "' is shorter than the " +
                       std::to_string(steps) + " steps of " + format_time(w.interval));
}

// The drawn kinds other than `workload`: their keys, then the ones every kind shares.
bool read_pattern(section& t, const std::string& kind, std::size_t index, scenario& s, const std::string& base_dir) {
  workload_spec w;
  if (kind == "incast")
    w.pattern = workload_pattern::incast;
  else if (kind == "permutation")
    w.pattern = workload_pattern::permutation;
  else if (kind == "all-to-all")
    w.pattern = workload_pattern::all_to_all;
  else if (kind == "ring-allreduce")
    w.pattern = workload_pattern::ring_allreduce;
  else
    return false;
  w.key = "traffic[" + std::to_string(index) + "]";
  w.group = index;
  w.start = parse_time(t.text_or("start", "0us"), t.key_path("start"));
  if (w.pattern == workload_pattern::incast)
    read_incast(t, w, s, base_dir);
  else if (w.pattern == workload_pattern::ring_allreduce)
    read_ring(t, w, s);
  else
    read_matrix(t, w, s);
  w.priority = read_priority(t, s.topology.classes);
  w.cc = read_cc(t);
  t.finish();
  s.workloads.push_back(w);
  return true;
}

void read_traffic(section& top, scenario& s, const std::string& base_dir) {
  YAML::Node list = top.get("traffic");
  if (!list) return;
  if (!list.IsSequence()) throw config_error("traffic: expected a list of flow groups");
  for (std::size_t i = 0; i < list.size(); ++i) {
    std::string path = "traffic[" + std::to_string(i) + "]";
    section t(list[i], path);
    flow_spec f;
    std::string kind = t.text("kind");
    if (kind == "workload") {
      read_workload(t, i, s, base_dir);
      continue;
    }
    if (read_pattern(t, kind, i, s, base_dir)) continue;
    if (kind == "constant")
      f.kind = flow_kind::constant;
    else if (kind == "finite")
      f.kind = flow_kind::finite;
    else if (kind == "onoff")
      f.kind = flow_kind::onoff;
    else
      throw config_error(t.key_path("kind") + ": '" + kind +
                         "' is not one of {constant, finite, onoff, workload, incast, permutation, all-to-all, "
                         "ring-allreduce}");
    auto srcs = match_nics(s.topology, name_list(t.get("src"), t.key_path("src")), t.key_path("src"));
    if (!t.has("dst")) throw config_error(t.key_path("dst") + ": missing");
    auto dsts = match_nics(s.topology, name_list(t.get("dst"), t.key_path("dst")), t.key_path("dst"));
    if (dsts.size() != 1) throw config_error(t.key_path("dst") + ": must name exactly one NIC");
    f.priority = read_priority(t, s.topology.classes);
    f.cc = read_cc(t);
    f.start = parse_time(t.text_or("start", "0us"), t.key_path("start"));
    if (f.kind != flow_kind::finite || t.has("rate")) f.rate = parse_link_rate(t.text("rate"), t.key_path("rate"));
    if (f.kind == flow_kind::finite) {
      f.size = parse_bytes(t.text("size"), t.key_path("size")).bytes;
      if (f.size == 0) throw config_error(t.key_path("size") + ": '" + t.text("size") + "' must be positive");
    }
    if (f.kind == flow_kind::onoff) {
      f.on = parse_time(t.text("on"), t.key_path("on"));
      f.off = parse_time(t.text("off"), t.key_path("off"));
      if (f.on == sc_core::SC_ZERO_TIME) throw config_error(t.key_path("on") + ": must be positive");
    }
    uint64_t count = parse_count(t.text_or("count", "1"), t.key_path("count"));
    if (count == 0 || count > max_flows)
      throw config_error(t.key_path("count") + ": '" + std::to_string(count) + "' must be in [1, " +
                         std::to_string(max_flows) + "]");
    t.finish();
    if (s.flows.size() + srcs.size() * count > max_flows)
      throw config_error(path + ": more than " + std::to_string(max_flows) + " flows in the scenario");
    for (const std::string& src : srcs) {
      if (src == dsts[0]) throw config_error(path + ": flow from '" + src + "' to itself");
      for (uint64_t c = 0; c < count; ++c) {
        flow_spec copy = f;
        copy.name = src + "->" + dsts[0] + (count > 1 ? "#" + std::to_string(c) : "");
        s.flows.push_back(copy);
        s.flow_ends.emplace_back(src, dsts[0]);
      }
    }
  }
}

void read_run(section& top, scenario& s) {
  if (!top.has("run")) return;
  section r(top.get("run"), "run");
  if (r.has("until")) s.until = parse_time(r.text("until"), "run.until");
  if (s.until == sc_core::SC_ZERO_TIME) throw config_error("run.until: must be positive");
  if (r.has("sample_period")) s.sample_period = parse_time(r.text("sample_period"), "run.sample_period");
  if (s.sample_period == sc_core::SC_ZERO_TIME) throw config_error("run.sample_period: must be positive");
  if (r.has("seed")) s.seed = parse_count(r.text("seed"), "run.seed");
  if (r.has("stop_when_done")) s.stop_when_done = parse_bool(r.text("stop_when_done"), "run.stop_when_done");
  if (r.has("allow_inert")) s.allow_inert = parse_bool(r.text("allow_inert"), "run.allow_inert");
  r.finish();
}

void read_params(section& top, scenario& s) {
  YAML::Node p = top.get("params");
  if (!p) return;
  if (!p.IsMap()) throw config_error("params: expected a mapping of parameter pattern to value");
  section::reject_duplicate_keys(p, "params");
  for (auto it = p.begin(); it != p.end(); ++it) {
    if (!it->second.IsScalar()) throw config_error("params." + it->first.as<std::string>() + ": expected a value");
    s.params.emplace_back(it->first.as<std::string>(), it->second.Scalar());
  }
}

void read_events(section& top, scenario& s) {
  YAML::Node list = top.get("events");
  if (!list) return;
  if (!list.IsSequence()) throw config_error("events: expected a list");
  for (std::size_t i = 0; i < list.size(); ++i) {
    section e(list[i], "events[" + std::to_string(i) + "]");
    link_event ev;
    ev.at = parse_time(e.text("at"), e.key_path("at"));
    ev.link = e.text("link");
    ev.rate = parse_link_rate(e.text("rate"), e.key_path("rate"));  // a link's rate: its range
    e.finish();
    bool known = std::any_of(s.topology.links.begin(), s.topology.links.end(),
                             [&](const link_spec& l) { return l.a + "-" + l.b == ev.link; });
    if (!known) throw config_error(e.key_path("link") + ": '" + ev.link + "' is not a link (names are 'a-b')");
    s.events.push_back(ev);
  }
}

// A node name: 1 to 64 letters, digits or '_', starting with a letter or digit. Names become
// module, parameter, statistic, link ("a-b") and flow ("a->b") names and JSON keys, so '.' and '-'
// (separators there), spaces, control characters and non-ASCII bytes are out.
constexpr std::size_t max_name = 64;

bool valid_node_name(const std::string& n) {
  const auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  return !n.empty() && n.size() <= max_name && alnum(n[0]) &&
         std::all_of(n.begin(), n.end(), [&](char c) { return alnum(c) || c == '_'; });
}

// What a fabric costs to build, measured as the peak RSS of 1 ns runs of the 10 240-host
// leaf-spine (40 960 ports) and the k = 34 fat tree (58 956) (docs/scale.md): 10.5 KiB per
// port (link end: MAC, flow control, egress queues, MMU group, their parameters and statistics)
// plus the forwarding tables, a 2-byte entry per (switch, NIC). A platform whose estimate
// exceeds the budget is refused before elaboration. Frames buffered during the run come on top.
constexpr double bytes_per_port = 11.0 * 1024, bytes_per_route = 2;
constexpr double platform_budget = 4.0 * (1ull << 30);

void check_platform(const topology_spec& t) {
  std::size_t switches = 0, nics = 0;
  for (const node_spec& n : t.nodes) {
    if (!valid_node_name(n.name))
      throw config_error("platform: node name '" + n.name + "' must be 1 to " + std::to_string(max_name) +
                         " letters, digits or '_', starting with a letter or digit");
    ++(n.is_switch ? switches : nics);
  }
  if (t.nodes.empty()) throw config_error("platform: the platform has no nodes");
  if (nics == 0) throw config_error("platform: the platform has no NICs (traffic needs at least one)");
  const double ports = 2.0 * static_cast<double>(t.links.size());
  const double estimate =
      ports * bytes_per_port + static_cast<double>(switches) * static_cast<double>(nics) * bytes_per_route;
  if (estimate > platform_budget)
    throw config_error("platform: " + std::to_string(switches) + " switches, " + std::to_string(nics) + " NICs and " +
                       std::to_string(t.links.size()) + " links would need about " +
                       format_number(std::ceil(estimate / (1 << 30) * 10) / 10) +
                       " GiB to build (11 KiB per port, 2 B per switch x NIC route entry); the limit is " +
                       format_number(platform_budget / (1 << 30)) + " GiB");
}

// Free text copied into summary.json must be valid UTF-8 (JSON cannot hold anything else).
std::string read_text(section& top, const std::string& key, const std::string& fallback, bool one_line) {
  std::string text = top.text_or(key, fallback);
  if (!valid_utf8(text)) throw config_error(key + ": '" + text + "' is not valid UTF-8");
  const bool control = std::any_of(text.begin(), text.end(), [&](char c) {
    unsigned char u = static_cast<unsigned char>(c);
    return (u < 0x20 || u == 0x7f) && (one_line || (c != '\n' && c != '\t'));
  });
  if (control) throw config_error(key + ": '" + text + "' contains control characters");
  return text;
}

scenario parse(const YAML::Node& root, const std::string& base_dir) {
  section top(root, "scenario");
  scenario s;
  s.name = read_text(top, "name", "unnamed", true);
  if (s.name.size() > 256) throw config_error("name: '" + s.name.substr(0, 32) + "...' is longer than 256 bytes");
  s.description = read_text(top, "description", "", false);
  if (top.has("profile")) s.profile = hardware_profile_named(top.text("profile"), "profile").name;
  if (!top.has("platform")) throw config_error("platform: missing");
  section platform(top.get("platform"), "platform");
  s.topology = build_platform(platform);
  platform.finish();
  check_platform(s.topology);
  read_traffic(top, s, base_dir);
  read_run(top, s);
  read_params(top, s);
  read_events(top, s);
  top.finish();
  if (s.stop_when_done) {
    if (s.flows.empty() && s.workloads.empty()) throw config_error("run.stop_when_done: the scenario has no flows");
    for (const flow_spec& f : s.flows)
      if (f.kind != flow_kind::finite)
        throw config_error("run.stop_when_done: flow '" + f.name + "' is long-lived and never completes");
  }
  return s;
}

// A scenario is text: YAML allows no control characters but tab and line breaks, and a file
// holding one (a NUL, the DEL of an ELF header) is binary or UTF-16, whatever the parser makes of it.
void check_text(const std::string& text, const std::string& origin) {
  std::size_t line = 1, column = 1;
  for (const char c : text) {
    const unsigned char u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\t' && c != '\n' && c != '\r') || u == 0x7F) {
      char byte[8];
      std::snprintf(byte, sizeof byte, "0x%02X", u);
      throw config_error(origin + ":" + std::to_string(line) + ":" + std::to_string(column) + ": byte " + byte + ": '" +
                         origin + "' is not text (a scenario is a YAML file)");
    }
    if (c == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
}

// Where the second YAML document of `text` starts (its first node), if it has one. Reads at most
// two documents: yaml-cpp may report documents for ever on some malformed input.
std::optional<YAML::Mark> second_document(const std::string& text) {
  struct counter final : YAML::EventHandler {
    int documents = 0;
    YAML::Mark first;
    std::optional<YAML::Mark> second;
    void OnDocumentStart(const YAML::Mark& m) override {
      if (++documents == 1) first = m;
      if (documents == 2) second = m;
    }
    void node(const YAML::Mark& m) {
      if (documents == 2 && second && !seen_node) second = m, seen_node = true;
    }
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark& m, YAML::anchor_t) override { node(m); }
    void OnAlias(const YAML::Mark& m, YAML::anchor_t) override { node(m); }
    void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t, const std::string&) override { node(m); }
    void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
      node(m);
    }
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
      node(m);
    }
    void OnMapEnd() override {}
    bool seen_node = false;
  } events;
  std::istringstream in(text);
  YAML::Parser parser(in);
  if (!parser.HandleNextDocument(events) || !parser.HandleNextDocument(events)) return std::nullopt;
  // A "second document" where the first began: the parser did not move (the ',' bug).
  if (events.second->pos == events.first.pos)
    throw YAML::ParserException(events.first, "no progress here (a ',' outside a [list] or {mapping}?)");
  return events.second;
}

}  // namespace

scenario load_scenario_text(const std::string& yaml_text, const std::string& origin, const std::string& base_dir) {
  check_text(yaml_text, origin);
  YAML::Node root;
  try {
    // A second document after '---' would be silently ignored: a scenario is one document.
    // Not YAML::LoadAll: yaml-cpp 0.7's loops for ever on a stray ',' (jbeder/yaml-cpp#1040,
    // found by fuzz_scenario), so the documents are counted, at most two, and the first loaded.
    if (auto second = second_document(yaml_text))
      throw config_error(origin + ":" + std::to_string(second->line + 1) +
                         ": more than one YAML document ('---'); a scenario is a single document");
    root = YAML::Load(yaml_text);
  } catch (const YAML::Exception& e) {
    // Text loads no file, so "bad file" is the parser's depth limit (its DeepRecursion is not
    // exported by the library, so it cannot be caught by type).
    const std::string what = e.msg == YAML::ErrorMsg::BAD_FILE
                                 ? "nested more levels deep than the parser allows (a scenario needs a handful)"
                                 : e.msg;
    throw config_error(origin + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) +
                       ": malformed YAML: " + what);
  }
  if (!root || root.IsNull()) throw config_error(origin + ": empty scenario");
  try {
    scenario s = parse(root, base_dir);
    s.source = origin;
    s.source_sha256 = sha256_hex(yaml_text);
    return s;
  } catch (const YAML::Exception& e) {
    throw config_error(origin + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
}

std::string read_input_file(const std::string& path, const std::string& key, std::size_t max_bytes) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) throw config_error(key + ": cannot open '" + path + "'");
  if (!std::filesystem::is_regular_file(status)) throw config_error(key + ": '" + path + "' is not a regular file");
  const auto size = std::filesystem::file_size(path, ec);
  if (!ec && size > max_bytes)
    throw config_error(key + ": '" + path + "' is larger than " + std::to_string(max_bytes) + " bytes");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw config_error(key + ": cannot open '" + path + "'");
  // Sized from the file, one byte more to notice a file that grew while it was read.
  const std::size_t expected = ec ? max_bytes : static_cast<std::size_t>(size);
  std::string text(expected + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.size() > expected)
    throw config_error(key + ": '" + path + "' is larger than " + std::to_string(expected) +
                       " bytes (or grew while read)");
  return text;
}

scenario load_scenario_file(const std::string& path) {
  const std::string text = read_input_file(path, "scenario file", max_scenario_bytes);
  std::string dir = path.find('/') == std::string::npos ? "." : path.substr(0, path.rfind('/'));
  return load_scenario_text(text, path, dir);
}

}  // namespace sluice
