#include "platforms/builders.h"

#include "models/core/packet.h"

namespace sluice {
namespace {

struct link_defaults {
  data_rate rate;
  sc_core::sc_time delay;
};

// `link_rate` and `link_delay`, falling back to the platforms' one default (topology.h); a kind
// may give its own default delay.
link_defaults read_link_defaults(section& p, sc_core::sc_time delay_default = default_link_delay) {
  return {p.has("link_rate") ? parse_link_rate(p.text("link_rate"), p.key_path("link_rate")) : default_link_rate,
          p.has("link_delay") ? parse_time(p.text("link_delay"), p.key_path("link_delay")) : delay_default};
}

// An optional per-tier rate or delay key, defaulting to the platform-wide one.
data_rate rate_or(section& p, const std::string& key, data_rate fallback) {
  return p.has(key) ? parse_link_rate(p.text(key), p.key_path(key)) : fallback;
}
sc_core::sc_time delay_or(section& p, const std::string& key, sc_core::sc_time fallback) {
  return p.has(key) ? parse_time(p.text(key), p.key_path(key)) : fallback;
}

// `routing: ecmp | d-mod-k` of tiered Clos kinds.
path_selection read_selection(section& p) {
  const std::string v = p.text_or("routing", "ecmp");
  if (v == "ecmp") return path_selection::ecmp;
  if (v == "d-mod-k") return path_selection::d_mod_k;
  throw config_error(p.key_path("routing") + ": '" + v + "' is not one of {ecmp, d-mod-k}");
}

uint64_t read_count(section& p, const std::string& key, const std::string& fallback, uint64_t min, uint64_t max) {
  uint64_t v = parse_count(p.text_or(key, fallback), p.key_path(key));
  if (v < min || v > max)
    throw config_error(p.key_path(key) + ": '" + std::to_string(v) + "' must be in [" + std::to_string(min) + ", " +
                       std::to_string(max) + "]");
  return v;
}

std::string nth(const char* prefix, uint64_t i) { return prefix + std::to_string(i); }

// N senders h0..hN-1 and one receiver r0 on one switch.
topology_spec incast(section& p) {
  uint64_t n = read_count(p, "senders", "16", 1, 1000);
  link_defaults l = read_link_defaults(p);
  topology_spec t;
  t.add_switch("sw0");
  for (uint64_t i = 0; i < n; ++i) t.add_nic(nth("h", i));
  t.add_nic("r0");
  for (uint64_t i = 0; i < n; ++i) t.connect(nth("h", i), "sw0", l.rate, l.delay);
  t.connect("sw0", "r0", l.rate, l.delay);
  return t;
}

// N senders on sw0, M receivers on sw1, one sw0-sw1 bottleneck.
topology_spec dumbbell(section& p) {
  uint64_t n = read_count(p, "senders", "4", 1, 1000);
  uint64_t m = read_count(p, "receivers", "4", 1, 1000);
  link_defaults l = read_link_defaults(p);
  data_rate bottleneck = rate_or(p, "bottleneck_rate", l.rate);
  topology_spec t;
  t.add_switch("sw0");
  t.add_switch("sw1");
  for (uint64_t i = 0; i < n; ++i) t.add_nic(nth("h", i));
  for (uint64_t i = 0; i < m; ++i) t.add_nic(nth("r", i));
  for (uint64_t i = 0; i < n; ++i) t.connect(nth("h", i), "sw0", l.rate, l.delay);
  t.connect("sw0", "sw1", bottleneck, l.delay);
  for (uint64_t i = 0; i < m; ++i) t.connect("sw1", nth("r", i), l.rate, l.delay);
  return t;
}

// A chain sw0..swK-1. h0 (on sw0) -> r0 (on swK-1) crosses every inter-switch link; each link
// swI -> swI+1 is also crossed by x_I (on swI) -> y_I (on swI+1).
topology_spec parking_lot(section& p) {
  uint64_t k = read_count(p, "switches", "4", 2, 100);
  link_defaults l = read_link_defaults(p);
  topology_spec t;
  for (uint64_t i = 0; i < k; ++i) t.add_switch(nth("sw", i));
  t.add_nic("h0");
  t.add_nic("r0");
  for (uint64_t i = 0; i + 1 < k; ++i) {
    t.add_nic(nth("x", i));
    t.add_nic(nth("y", i));
  }
  t.connect("h0", "sw0", l.rate, l.delay);
  for (uint64_t i = 0; i + 1 < k; ++i) t.connect(nth("sw", i), nth("sw", i + 1), l.rate, l.delay);
  t.connect(nth("sw", k - 1), "r0", l.rate, l.delay);
  for (uint64_t i = 0; i + 1 < k; ++i) {
    t.connect(nth("x", i), nth("sw", i), l.rate, l.delay);
    t.connect(nth("sw", i + 1), nth("y", i), l.rate, l.delay);
  }
  return t;
}

// The PCN paper's basic unit (NSDI'20 section 3, Fig. 1): h0 and h1 on sw0, the burst senders
// h2..hN-1 and both receivers on sw1, joined by the sw0-sw1 link. F1 (h1->r1) shares the
// r1 port with the bursts; F0 (h0->r0) does not, yet is paused through sw0.
topology_spec pcn_basic(section& p) {
  uint64_t n = read_count(p, "senders", "16", 2, 1000);
  link_defaults l = read_link_defaults(p, sc_core::sc_time(5, sc_core::SC_US));
  topology_spec t;
  t.add_switch("sw0");
  t.add_switch("sw1");
  for (uint64_t i = 0; i < n; ++i) t.add_nic(nth("h", i));
  t.add_nic("r0");
  t.add_nic("r1");
  for (uint64_t i = 0; i < n; ++i) t.connect(nth("h", i), i < 2 ? "sw0" : "sw1", l.rate, l.delay);
  t.connect("sw0", "sw1", l.rate, l.delay);
  t.connect("sw1", "r0", l.rate, l.delay);
  t.connect("sw1", "r1", l.rate, l.delay);
  return t;
}

// A two-tier Clos: `leaves` leaf switches l0.., `spines` spine switches s0.., every leaf linked
// to every spine; `hosts` NICs per leaf, named h<leaf>_<i>. Leaf-spine links may run at their
// own rate (`uplink_rate`, default = link_rate). Traffic between leaves spreads over the spines
// by per-flow ECMP (or `routing: d-mod-k`).
topology_spec leaf_spine(section& p) {
  uint64_t leaves = read_count(p, "leaves", "4", 1, 1024);
  uint64_t spines = read_count(p, "spines", "2", 1, 256);
  uint64_t hosts = read_count(p, "hosts", "4", 1, 256);
  link_defaults l = read_link_defaults(p);
  data_rate uplink = rate_or(p, "uplink_rate", l.rate);
  topology_spec t;
  t.selection = read_selection(p);
  for (uint64_t i = 0; i < leaves; ++i) t.add_switch(nth("l", i), 1);
  for (uint64_t i = 0; i < spines; ++i) t.add_switch(nth("s", i), 2);
  for (uint64_t i = 0; i < leaves; ++i)
    for (uint64_t j = 0; j < hosts; ++j) t.add_nic("h" + std::to_string(i) + "_" + std::to_string(j));
  for (uint64_t i = 0; i < leaves; ++i)
    for (uint64_t j = 0; j < hosts; ++j)
      t.connect("h" + std::to_string(i) + "_" + std::to_string(j), nth("l", i), l.rate, l.delay);
  for (uint64_t i = 0; i < leaves; ++i)
    for (uint64_t k = 0; k < spines; ++k) t.connect(nth("l", i), nth("s", k), uplink, l.delay);
  return t;
}

std::string host_name(uint64_t a, uint64_t b) { return "h" + std::to_string(a) + "_" + std::to_string(b); }

// A k-ary fat tree (Al-Fares et al., SIGCOMM'08) of k-port switches.
//  tiers 3: k pods of k/2 edge switches e<pod>_<i> and k/2 aggregation switches a<pod>_<i>
//           (every edge linked to every agg of its pod), (k/2)^2 cores c<j>: agg i of each pod
//           links to cores i*k/2 .. i*k/2+k/2-1. Hosts h<pod>_<edge>_<i>. k^3/4 hosts.
//  tiers 2: the leaf-spine form: k leaves l<i>, k/2 spines s<j>, every leaf to every spine,
//           hosts h<leaf>_<i>. k^2/2 hosts.
// Each edge switch has `hosts_per_edge` hosts (default k/2, its uplink count): more
// oversubscribes the edge by hosts_per_edge : k/2. Per-tier rates and delays: host_* (host to
// edge), edge_* (edge to agg/spine), core_* (agg to core), defaulting to link_rate/link_delay.
topology_spec fat_tree(section& p) {
  const uint64_t k = read_count(p, "k", "4", 2, 64);
  if (k % 2) throw config_error(p.key_path("k") + ": '" + std::to_string(k) + "' must be even");
  const uint64_t tiers = read_count(p, "tiers", "3", 2, 3);
  const uint64_t half = k / 2;
  const uint64_t per_edge = read_count(p, "hosts_per_edge", std::to_string(half), 1, 4096 - half);
  const uint64_t hosts = (tiers == 2 ? k : k * half) * per_edge;
  if (hosts > 65536)
    throw config_error(p.key_path("hosts_per_edge") + ": '" + std::to_string(per_edge) + "' gives " +
                       std::to_string(hosts) + " hosts; at most 65536");
  link_defaults l = read_link_defaults(p);
  const data_rate host_rate = rate_or(p, "host_rate", l.rate), edge_rate = rate_or(p, "edge_rate", l.rate);
  const sc_core::sc_time host_delay = delay_or(p, "host_delay", l.delay),
                         edge_delay = delay_or(p, "edge_delay", l.delay);
  topology_spec t;
  t.selection = read_selection(p);
  if (tiers == 2) {
    for (const char* key : {"core_rate", "core_delay"})
      if (p.has(key)) throw config_error(p.key_path(key) + ": only a 3-tier fat tree has cores");
    for (uint64_t i = 0; i < k; ++i) t.add_switch(nth("l", i), 1);
    for (uint64_t j = 0; j < half; ++j) t.add_switch(nth("s", j), 2);
    for (uint64_t i = 0; i < k; ++i)
      for (uint64_t h = 0; h < per_edge; ++h) t.add_nic(host_name(i, h));
    for (uint64_t i = 0; i < k; ++i)
      for (uint64_t h = 0; h < per_edge; ++h) t.connect(host_name(i, h), nth("l", i), host_rate, host_delay);
    for (uint64_t i = 0; i < k; ++i)
      for (uint64_t j = 0; j < half; ++j) t.connect(nth("l", i), nth("s", j), edge_rate, edge_delay);
    return t;
  }
  const data_rate core_rate = rate_or(p, "core_rate", l.rate);
  const sc_core::sc_time core_delay = delay_or(p, "core_delay", l.delay);
  auto edge = [](uint64_t pod, uint64_t i) { return "e" + std::to_string(pod) + "_" + std::to_string(i); };
  auto agg = [](uint64_t pod, uint64_t i) { return "a" + std::to_string(pod) + "_" + std::to_string(i); };
  auto host = [](uint64_t pod, uint64_t e, uint64_t h) {
    return "h" + std::to_string(pod) + "_" + std::to_string(e) + "_" + std::to_string(h);
  };
  for (uint64_t pod = 0; pod < k; ++pod)
    for (uint64_t i = 0; i < half; ++i) t.add_switch(edge(pod, i), 1);
  for (uint64_t pod = 0; pod < k; ++pod)
    for (uint64_t i = 0; i < half; ++i) t.add_switch(agg(pod, i), 2);
  for (uint64_t c = 0; c < half * half; ++c) t.add_switch(nth("c", c), 3);
  for (uint64_t pod = 0; pod < k; ++pod)
    for (uint64_t e = 0; e < half; ++e)
      for (uint64_t h = 0; h < per_edge; ++h) t.add_nic(host(pod, e, h));
  for (uint64_t pod = 0; pod < k; ++pod)
    for (uint64_t e = 0; e < half; ++e)
      for (uint64_t h = 0; h < per_edge; ++h) t.connect(host(pod, e, h), edge(pod, e), host_rate, host_delay);
  for (uint64_t pod = 0; pod < k; ++pod)
    for (uint64_t e = 0; e < half; ++e)
      for (uint64_t a = 0; a < half; ++a) t.connect(edge(pod, e), agg(pod, a), edge_rate, edge_delay);
  for (uint64_t pod = 0; pod < k; ++pod)
    for (uint64_t a = 0; a < half; ++a)
      for (uint64_t c = 0; c < half; ++c) t.connect(agg(pod, a), nth("c", a * half + c), core_rate, core_delay);
  return t;
}

// The PCN paper's realistic-workload Clos (NSDI'20 section 7.4): `pods` pods, each of `leaves`
// leaves l<pod>_<i> and `tors` ToRs t<pod>_<j> (every ToR linked to every leaf of its pod) with
// `hosts` NICs each, h<pod>_<j>_<i>; `spines` spines s<k>, leaf i of every pod linked to spines
// i*spines/leaves .. (i+1)*spines/leaves-1 (one plane per leaf index, so each pod reaches every
// spine once). Host links at host_rate, every link above the ToRs at uplink_rate, all with
// link_delay.
topology_spec pcn_clos(section& p) {
  const uint64_t pods = read_count(p, "pods", "8", 1, 64);
  const uint64_t leaves = read_count(p, "leaves", "2", 1, 64);
  const uint64_t tors = read_count(p, "tors", "4", 1, 256);
  const uint64_t hosts = read_count(p, "hosts", "16", 1, 256);
  const uint64_t spines = read_count(p, "spines", "8", 1, 1024);
  if (spines % leaves)
    throw config_error(p.key_path("spines") + ": '" + std::to_string(spines) + "' must be a multiple of leaves (" +
                       std::to_string(leaves) + ")");
  if (pods * tors * hosts > 65536)
    throw config_error(p.key_path("hosts") + ": '" + std::to_string(hosts) + "' gives " +
                       std::to_string(pods * tors * hosts) + " hosts; at most 65536");
  const data_rate host_rate =
      p.has("host_rate") ? parse_link_rate(p.text("host_rate"), p.key_path("host_rate")) : data_rate{10e9};
  const data_rate uplink =
      p.has("uplink_rate") ? parse_link_rate(p.text("uplink_rate"), p.key_path("uplink_rate")) : data_rate{40e9};
  const sc_core::sc_time delay = delay_or(p, "link_delay", sc_core::sc_time(5, sc_core::SC_US));
  auto in_pod = [](const char* prefix, uint64_t pod, uint64_t i) {
    return prefix + std::to_string(pod) + "_" + std::to_string(i);
  };
  auto host = [](uint64_t pod, uint64_t tor, uint64_t i) {
    return "h" + std::to_string(pod) + "_" + std::to_string(tor) + "_" + std::to_string(i);
  };
  topology_spec t;
  t.selection = read_selection(p);
  for (uint64_t pod = 0; pod < pods; ++pod)
    for (uint64_t j = 0; j < tors; ++j) t.add_switch(in_pod("t", pod, j), 1);
  for (uint64_t pod = 0; pod < pods; ++pod)
    for (uint64_t i = 0; i < leaves; ++i) t.add_switch(in_pod("l", pod, i), 2);
  for (uint64_t k = 0; k < spines; ++k) t.add_switch(nth("s", k), 3);
  for (uint64_t pod = 0; pod < pods; ++pod)
    for (uint64_t j = 0; j < tors; ++j)
      for (uint64_t i = 0; i < hosts; ++i) t.add_nic(host(pod, j, i));
  for (uint64_t pod = 0; pod < pods; ++pod)
    for (uint64_t j = 0; j < tors; ++j)
      for (uint64_t i = 0; i < hosts; ++i) t.connect(host(pod, j, i), in_pod("t", pod, j), host_rate, delay);
  for (uint64_t pod = 0; pod < pods; ++pod)
    for (uint64_t j = 0; j < tors; ++j)
      for (uint64_t i = 0; i < leaves; ++i) t.connect(in_pod("t", pod, j), in_pod("l", pod, i), uplink, delay);
  const uint64_t per_leaf = spines / leaves;
  for (uint64_t pod = 0; pod < pods; ++pod)
    for (uint64_t i = 0; i < leaves; ++i)
      for (uint64_t k = 0; k < per_leaf; ++k) t.connect(in_pod("l", pod, i), nth("s", i * per_leaf + k), uplink, delay);
  return t;
}

std::vector<std::string> names(section& p, const std::string& key) {
  YAML::Node n = p.get(key);
  if (!n || !n.IsSequence()) throw config_error(p.key_path(key) + ": expected a list of names");
  std::vector<std::string> out;
  for (std::size_t i = 0; i < n.size(); ++i) {
    if (!n[i].IsScalar()) throw config_error(p.key_path(key) + "[" + std::to_string(i) + "]: expected a name");
    out.push_back(n[i].Scalar());
  }
  return out;
}

// switches: [..], nics: [..], links: [{a, b, rate, delay}], with link_rate/link_delay defaults,
// and optional static routes: [{switch, dst, via}] replacing computed forwarding entries.
topology_spec custom(section& p) {
  link_defaults l = read_link_defaults(p);
  topology_spec t;
  for (const std::string& s : names(p, "switches")) t.add_switch(s);
  for (const std::string& n : names(p, "nics")) t.add_nic(n);
  YAML::Node links = p.get("links");
  if (!links || !links.IsSequence()) throw config_error(p.key_path("links") + ": expected a list of links");
  for (std::size_t i = 0; i < links.size(); ++i) {
    section e(links[i], p.key_path("links") + "[" + std::to_string(i) + "]");
    std::string a = e.text("a"), b = e.text("b");
    data_rate r = rate_or(e, "rate", l.rate);
    sc_core::sc_time d = delay_or(e, "delay", l.delay);
    e.finish();
    t.connect(a, b, r, d);
  }
  if (p.has("routes")) {
    YAML::Node routes = p.get("routes");
    if (!routes.IsSequence()) throw config_error(p.key_path("routes") + ": expected a list of routes");
    for (std::size_t i = 0; i < routes.size(); ++i) {
      section r(routes[i], p.key_path("routes") + "[" + std::to_string(i) + "]");
      route_spec rs{r.text("switch"), r.text("dst"), {}};
      YAML::Node via = r.get("via");
      if (!via) throw config_error(r.key_path("via") + ": missing");
      if (via.IsScalar())
        rs.via.push_back(via.Scalar());
      else if (via.IsSequence() && via.size() > 0)
        for (const auto& v : via) {
          if (!v.IsScalar()) throw config_error(r.key_path("via") + ": expected neighbour names");
          rs.via.push_back(v.Scalar());
        }
      else
        throw config_error(r.key_path("via") + ": expected a neighbour name or a non-empty list of them");
      r.finish();
      t.routes.push_back(rs);
    }
  }
  return t;
}

// The registry, with the built-in kinds in the order the docs list them.
std::vector<std::pair<std::string, platform_builder>>& registry() {
  static std::vector<std::pair<std::string, platform_builder>> kinds = {
      {"incast", incast},         {"dumbbell", dumbbell}, {"parking-lot", parking_lot}, {"pcn-basic", pcn_basic},
      {"leaf-spine", leaf_spine}, {"fat-tree", fat_tree}, {"pcn-clos", pcn_clos},       {"custom", custom},
  };
  return kinds;
}

}  // namespace

void register_platform_kind(const std::string& kind, platform_builder build) {
  for (auto& [name, b] : registry())
    if (name == kind) {
      b = build;
      return;
    }
  registry().emplace_back(kind, build);
}

std::vector<std::string> platform_kinds() {
  std::vector<std::string> out;
  for (const auto& entry : registry()) out.push_back(entry.first);
  return out;
}

topology_spec build_platform(section& p) {
  const std::string kind = p.text("kind");
  const std::string layer = p.text_or("link_layer", "cee");
  if (layer != "cee" && layer != "ib")
    throw config_error(p.key_path("link_layer") + ": '" + layer + "' is not one of {cee, ib}");
  for (const auto& [name, build] : registry())
    if (name == kind) {
      topology_spec t = build(p);
      if (layer == "ib") {  // every port gets credits; the classes are InfiniBand's 16 VLs
        t.layer = link_layer::ib;
        t.classes = max_classes;
      }
      return t;
    }
  std::string known;
  for (const auto& entry : registry()) known += (known.empty() ? "" : ", ") + entry.first;
  throw config_error(p.key_path("kind") + ": '" + kind + "' is not one of {" + known + "}");
}

}  // namespace sluice
