#include "platforms/builders.h"

namespace sluice {
namespace {

struct link_defaults {
  data_rate rate;
  sc_core::sc_time delay;
};

link_defaults read_link_defaults(section& p, const std::string& rate_default, const std::string& delay_default) {
  return {parse_link_rate(p.text_or("link_rate", rate_default), p.key_path("link_rate")),
          parse_time(p.text_or("link_delay", delay_default), p.key_path("link_delay"))};
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
  link_defaults l = read_link_defaults(p, "40Gbps", "1us");
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
  link_defaults l = read_link_defaults(p, "40Gbps", "1us");
  data_rate bottleneck =
      parse_link_rate(p.text_or("bottleneck_rate", format_rate(l.rate)), p.key_path("bottleneck_rate"));
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
  link_defaults l = read_link_defaults(p, "40Gbps", "1us");
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
  link_defaults l = read_link_defaults(p, "40Gbps", "5us");
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
// by per-flow ECMP.
topology_spec leaf_spine(section& p) {
  uint64_t leaves = read_count(p, "leaves", "4", 1, 256);
  uint64_t spines = read_count(p, "spines", "2", 1, 256);
  uint64_t hosts = read_count(p, "hosts", "4", 1, 256);
  link_defaults l = read_link_defaults(p, "40Gbps", "1us");
  data_rate uplink = parse_link_rate(p.text_or("uplink_rate", format_rate(l.rate)), p.key_path("uplink_rate"));
  topology_spec t;
  for (uint64_t i = 0; i < leaves; ++i) t.add_switch(nth("l", i));
  for (uint64_t i = 0; i < spines; ++i) t.add_switch(nth("s", i));
  for (uint64_t i = 0; i < leaves; ++i)
    for (uint64_t j = 0; j < hosts; ++j) t.add_nic("h" + std::to_string(i) + "_" + std::to_string(j));
  for (uint64_t i = 0; i < leaves; ++i)
    for (uint64_t j = 0; j < hosts; ++j)
      t.connect("h" + std::to_string(i) + "_" + std::to_string(j), nth("l", i), l.rate, l.delay);
  for (uint64_t i = 0; i < leaves; ++i)
    for (uint64_t k = 0; k < spines; ++k) t.connect(nth("l", i), nth("s", k), uplink, l.delay);
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
  link_defaults l = read_link_defaults(p, "40Gbps", "1us");
  topology_spec t;
  for (const std::string& s : names(p, "switches")) t.add_switch(s);
  for (const std::string& n : names(p, "nics")) t.add_nic(n);
  YAML::Node links = p.get("links");
  if (!links || !links.IsSequence()) throw config_error(p.key_path("links") + ": expected a list of links");
  for (std::size_t i = 0; i < links.size(); ++i) {
    section e(links[i], p.key_path("links") + "[" + std::to_string(i) + "]");
    std::string a = e.text("a"), b = e.text("b");
    data_rate r = e.has("rate") ? parse_link_rate(e.text("rate"), e.key_path("rate")) : l.rate;
    sc_core::sc_time d = e.has("delay") ? parse_time(e.text("delay"), e.key_path("delay")) : l.delay;
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

}  // namespace

topology_spec build_platform(section& p) {
  std::string kind = p.text("kind");
  if (kind == "incast") return incast(p);
  if (kind == "dumbbell") return dumbbell(p);
  if (kind == "parking-lot") return parking_lot(p);
  if (kind == "pcn-basic") return pcn_basic(p);
  if (kind == "leaf-spine") return leaf_spine(p);
  if (kind == "custom") return custom(p);
  throw config_error(p.key_path("kind") + ": '" + kind +
                     "' is not one of {incast, dumbbell, parking-lot, pcn-basic, leaf-spine, custom}");
}

}  // namespace sluice
