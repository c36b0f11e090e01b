#include "platforms/fabric.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <unordered_set>

#include "models/cc/scheme.h"
#include "models/core/random.h"

namespace sluice {
namespace {
// InfiniBand VLs whose input buffer (with their port's pool) holds less than their link's credit
// loop needs at line rate: counted over the fabric, the first one named in a single warning.
struct short_buffers {
  int count = 0;
  std::string first;
  void check(const credit_flow_control& fc, uint64_t max_frame) {
    const uint64_t need = fc.line_rate_buffer_bytes(max_frame);
    for (std::size_t k = 0; k < fc.buffer.size(); ++k) {
      const uint64_t own = (*fc.buffer[k])().bytes, have = own + fc.pool().bytes;
      if (!fc.has_vl(static_cast<int>(k)) || have >= need) continue;
      if (count++) continue;
      first = fc.buffer[k]->name() + " = " + format_bytes(byte_count{own}) +
              (fc.pool().bytes ? " (+ pool " + format_bytes(fc.pool()) + ")" : "") + " is below the " +
              format_bytes(byte_count{need}) + " its link's credit loop needs at " + format_rate(fc.mac_rate()) +
              ": it holds the VL to about " +
              format_rate(data_rate{std::round(fc.credit_loop_rate_bps(have, max_frame) / 1e8) * 1e8});
    }
  }
  std::string message() const {
    return count == 1 ? first : first + " (" + std::to_string(count - 1) + " more VL buffers below their link's need)";
  }
};

// A flow's two ends each follow a profile: whose rules and values (the sender's rp.profile or
// timely.profile, the receiver's np.profile; docs/models/dcqcn.md, timely.md). Ends that name
// different ones run half of each (e.g. the HPCC simulator's TIMELY over the paper's segment
// ACKs): counted over the flows, the first one named in a single warning.
struct profile_pairs {
  int count = 0;
  std::string first;
  void check(const choice_param* rp, const choice_param* np) {
    if (!rp || !np || (*rp)() == (*np)() || count++) return;
    first = rp->name() + " is '" + (*rp)() + "' but " + np->name() + " is '" + (*np)() + "'";
  }
  std::string message() const {
    return first + ": the flow's two ends follow different profiles; set the receivers' np.profile as the senders'" +
           (count > 1 ? " (" + std::to_string(count - 1) + (count > 2 ? " more flows)" : " more flow)") : "");
  }
};

// The order keys of a node's timed clients (models/core/event_queue.h): the same whichever
// partition builds the node.
order_scope node_scope(uint32_t node) { return order_scope(node + 1); }
}  // namespace

// The far end of a link to another partition: it binds the sockets its missing MAC would have.
// Nothing passes through it (the near link's copy ships and accepts frames itself).
class remote_end : public sc_core::sc_module, public frame_receiver {
 public:
  frame_out_socket<remote_end> tx;
  frame_in_socket rx;
  explicit remote_end(sc_core::sc_module_name name) : sc_module(name), tx("tx"), rx("rx") { rx.bind(*this); }
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload&, tlm::tlm_phase&, sc_core::sc_time&) override {
    SC_REPORT_ERROR(name(), "a frame reached the far end of a link to another partition");
    return tlm::TLM_COMPLETED;
  }
};

fabric::fabric(const scenario& s, const std::vector<uint32_t>& owner, uint32_t rank)
    : scenario_(s), owner_(owner), rank_(rank) {
  const topology_spec& t = scenario_.topology;
  node_ids_.reserve(t.nodes.size());
  for (uint32_t i = 0; i < t.nodes.size(); ++i) node_ids_.emplace(t.nodes[i].name, i);
  check_topology();
  graph_ = std::make_unique<port_graph>(t, node_ids_);

  // Ports are numbered in link order on each node (the graph's order).
  switch_of_node_.assign(t.nodes.size(), nullptr);
  nic_of_node_.assign(t.nodes.size(), nullptr);
  for (uint32_t id = 0; id < t.nodes.size(); ++id) {
    const node_spec& n = t.nodes[id];
    if (!owns(id)) continue;
    const order_scope scope = node_scope(id);
    if (n.is_switch) {
      switches.push_back(std::make_unique<switch_model>(n.name.c_str(), id, static_cast<int>(graph_->peer[id].size()),
                                                        t.classes, t.layer));
      switch_of_node_[id] = switches.back().get();
    } else {
      nics.push_back(std::make_unique<nic>(n.name.c_str(), id, flows, t.classes, t.layer));
      nic_of_node_[id] = nics.back().get();
    }
  }

  std::vector<int> next_port(t.nodes.size(), 0);
  auto attach = [&](uint32_t node) {
    port_ref r{node, next_port[node]++, nullptr, nullptr};
    if (!owns(node)) return r;
    if (switch_model* sw = switch_of_node_[node]) {
      r.mac = &sw->ports[r.port]->mac;
      r.flow_control = &sw->ports[r.port]->flow_control;
      r.credits = sw->ports[r.port]->credits.get();
    } else {
      r.mac = &nic_of_node_[node]->port.mac;
      r.flow_control = &nic_of_node_[node]->port.flow_control;
      r.credits = nic_of_node_[node]->port.credits.get();
    }
    return r;
  };
  links.reserve(t.links.size());
  link_slot_.assign(t.links.size(), -1);
  for (uint32_t index = 0; index < t.links.size(); ++index) {
    const link_spec& l = t.links[index];
    link_entry e;
    e.index = index;
    e.a = attach(node_ids_.at(l.a));
    e.b = attach(node_ids_.at(l.b));
    if (!e.a.mac && !e.b.mac) continue;                   // between two other partitions
    const order_scope scope(t.nodes.size() + 1 + index);  // a link's two channels
    e.model = std::make_unique<link>((l.a + "-" + l.b).c_str(), l.rate, l.delay);
    // A missing end is in another partition: a stand-in binds its sockets.
    remote_end* far = nullptr;
    if (!e.a.mac || !e.b.mac) {
      remote_ends_.push_back(std::make_unique<remote_end>((l.a + "-" + l.b + "-far").c_str()));
      far = remote_ends_.back().get();
    }
    // Our MACs join the link without sockets (the direct hop); the stand-in binds its sockets.
    if (e.a.mac) {
      e.model->ab.join_from(*e.a.mac);
      e.model->ba.join_to(*e.a.mac);
    } else {
      far->tx.bind(e.model->ab.in);
      e.model->ba.out.bind(far->rx);
    }
    if (e.b.mac) {
      e.model->ba.join_from(*e.b.mac);
      e.model->ab.join_to(*e.b.mac);
    } else {
      far->tx.bind(e.model->ba.in);
      e.model->ab.out.bind(far->rx);
    }
    for (const port_ref* end : {&e.a, &e.b})
      if (end->mac) end->mac->attach_wire(e.model.get());
    if (e.a.mac && e.b.mac) {
      e.a.flow_control->set_peer(*e.b.flow_control);  // which settings can matter (pfc::inert_reason)
      e.b.flow_control->set_peer(*e.a.flow_control);
    }
    e.model->ab.set_label(l.a + "->" + l.b);
    e.model->ba.set_label(l.b + "->" + l.a);
    link_slot_[index] = static_cast<int32_t>(links.size());
    links.push_back(std::move(e));
  }

  table_set tables(t.nodes.size(), nullptr);
  // Another partition's switches get tables of their own here, only to check the flows' paths
  // and plan source routes as the whole fabric does; they are dropped afterwards.
  std::vector<std::unique_ptr<forwarding_table>> elsewhere;
  for (uint32_t id = 0; id < t.nodes.size(); ++id)
    if (switch_of_node_[id]) {
      tables[id] = &switch_of_node_[id]->forwarding.table;
    } else if (t.nodes[id].is_switch) {
      elsewhere.push_back(std::make_unique<forwarding_table>());
      tables[id] = elsewhere.back().get();
    }
  compute_routes(t, *graph_, tables);
  apply_static_routes(t, node_ids_, *graph_, tables);
  std::vector<flow_ends> ends;
  ends.reserve(scenario_.flows.size());
  for (std::size_t i = 0; i < scenario_.flows.size(); ++i)
    ends.push_back({node_ids_.at(scenario_.flow_ends[i].first), node_ids_.at(scenario_.flow_ends[i].second),
                    &scenario_.flows[i].name});
  check_flow_paths(t, *graph_, tables, ends);
  paths_ = plan_paths(t, tables);
  const uint64_t seed = random_streams::instance().seed();
  for (auto& sw : switches) sw->forwarding.table.set_salt(derive_seed(seed, sw->name()));

  for (std::size_t i = 0; i < scenario_.flows.size(); ++i) {
    flow f;
    f.id = static_cast<uint32_t>(i);
    f.spec = scenario_.flows[i];
    f.spec.src = ends[i].src;
    f.spec.dst = ends[i].dst;
    flows.push_back(f);
  }
  for (const flow& f : flows) {
    if (!owns(f.spec.src)) continue;
    const order_scope scope = node_scope(f.spec.src);
    nic_of_node_[f.spec.src]->add_flow(f.id);
  }
  for (auto& n : nics) {
    const order_scope scope = node_scope(n->node_id());
    n->set_path_plan(&paths_);
  }
}

fabric::~fabric() = default;

void fabric::check_topology() const {
  const topology_spec& t = scenario_.topology;
  for (const node_spec& n : t.nodes)
    if (n.name.empty() || n.name.find_first_of(". -") != std::string::npos)
      throw config_error("platform: node name '" + n.name + "' must be non-empty without '.', '-' or spaces");
  if (node_ids_.size() != t.nodes.size())
    for (uint32_t i = 0; i < t.nodes.size(); ++i)
      if (node_ids_.at(t.nodes[i].name) != i)
        throw config_error("platform: node '" + t.nodes[i].name + "' is declared twice");
  std::vector<uint64_t> degree(t.nodes.size(), 0);
  std::unordered_set<uint64_t> linked;  // unordered node pairs
  linked.reserve(t.links.size());
  for (const link_spec& l : t.links) {
    for (const std::string& end : {l.a, l.b})
      if (!node_ids_.count(end)) throw config_error("platform.links: '" + end + "' is not a declared node");
    const uint32_t a = node_ids_.at(l.a), b = node_ids_.at(l.b);
    if (a == b) throw config_error("platform.links: '" + l.a + "' is linked to itself");
    if (!linked.insert(static_cast<uint64_t>(std::min(a, b)) << 32 | std::max(a, b)).second)
      throw config_error("platform.links: '" + l.a + "-" + l.b + "' is declared twice");
    ++degree[a];
    ++degree[b];
  }
  for (uint32_t i = 0; i < t.nodes.size(); ++i) {
    const node_spec& n = t.nodes[i];
    if (!n.is_switch && degree[i] != 1)
      throw config_error("platform: NIC '" + n.name + "' has " + std::to_string(degree[i]) +
                         " links; a NIC has exactly one port");
    if (n.is_switch && degree[i] == 0) throw config_error("platform: switch '" + n.name + "' has no links");
    if (n.is_switch && degree[i] > 4096)
      throw config_error("platform: switch '" + n.name + "' has more than 4096 ports");
  }
}

std::vector<uint64_t> fabric::near_responses() const {
  std::vector<uint64_t> out(2 * scenario_.topology.links.size(), 0);
  for (const link_entry& e : links) {
    if (e.a.flow_control) out[2 * e.index] = to_ps(e.a.flow_control->response());
    if (e.b.flow_control) out[2 * e.index + 1] = to_ps(e.b.flow_control->response());
  }
  return out;
}

void fabric::derive_defaults(const std::function<uint64_t(uint64_t)>& max_over_parts) {
  for (const auto& n : nics) {
    const order_scope scope = node_scope(n->node_id());
    n->derive_policy_defaults();
  }  // profiles first: they may set frame sizes
  uint64_t max_frame = 64;
  for (const auto& n : nics)
    max_frame = std::max({max_frame, n->mtu().bytes + n->header_bytes().bytes, n->min_frame().bytes});
  if (max_over_parts) max_frame = max_over_parts(max_frame);
  warnings_.clear();
  profile_pairs profiles;
  for (const flow& f : flows)  // (a flow whose ends are in two partitions is not checked)
    if (owns(f.spec.src) && owns(f.spec.dst))
      profiles.check(nic_of_node_[f.spec.src]->rp_profile(), nic_of_node_[f.spec.dst]->np_profile());
  if (profiles.count) warnings_.push_back(profiles.message());
  short_buffers short_vls;
  for (const link_entry& e : links) {
    for (const port_ref* end : {&e.a, &e.b}) {
      if (end->credits) {  // InfiniBand: each VL's buffer from the link's credit loop
        end->credits->derive_buffer_default(max_frame);
        short_vls.check(*end->credits, max_frame);
      }
      switch_model* sw = switch_of_node_[end->node];
      if (!sw) continue;
      if (switch_port& port = *sw->ports[end->port]; port.credits) {
        // A credit port's VL buffers (and its shared pool) are the MMU's per-group reserve:
        // credits bound each group.
        uint64_t most = 0;
        for (const auto& b : port.credits->buffer) most = std::max(most, (*b)().bytes);
        sw->mmu_block.ports[end->port]->reserve.set_default(byte_count{most + port.credits->pool().bytes});
        continue;
      }
      const port_ref& peer = end == &e.a ? e.b : e.a;
      const sc_core::sc_time peer_response = peer.flow_control
                                                 ? peer.flow_control->response()
                                                 : from_ps(far_response_ps_.at(2 * e.index + (end == &e.a ? 1 : 0)));
      // A delayed admission decides XOFF that much later: the peer keeps sending for it too.
      byte_count h =
          pfc::required_headroom(e.model->rate(), e.model->delay(), peer_response + sw->admission_latency(), max_frame);
      sw->mmu_block.ports[end->port]->headroom.set_default(h);
    }
  }
  if (short_vls.count) warnings_.push_back(short_vls.message());
}

void fabric::set_shipper(frame_shipper* s) {
  for (link_entry& e : links) {
    if (e.a.mac && !e.b.mac) e.model->ab.ship_to(s, 2 * e.index);
    if (e.b.mac && !e.a.mac) e.model->ba.ship_to(s, 2 * e.index + 1);
  }
}

void fabric::ship_cut_links(frame_shipper* s, const std::vector<uint32_t>& owner) {
  for (link_entry& e : links)
    if (owner[e.a.node] != owner[e.b.node]) {
      e.model->ab.ship_to(s, 2 * e.index);
      e.model->ba.ship_to(s, 2 * e.index + 1);
    }
}

link_channel* fabric::link_channel_at(uint32_t n) {
  const uint32_t index = n / 2;
  if (index >= link_slot_.size() || link_slot_[index] < 0) return nullptr;
  link& l = *links[static_cast<std::size_t>(link_slot_[index])].model;
  return n % 2 ? &l.ba : &l.ab;
}

bool fabric::holds_link(const std::string& name) const {
  for (const link_entry& e : links)
    if (name == e.model->name()) return true;
  return false;
}

bool fabric::topology_has_link(const std::string& name) const {
  for (const link_spec& l : scenario_.topology.links)
    if (name == l.a + "-" + l.b) return true;
  return false;
}

link& fabric::link_named(const std::string& name) {
  for (link_entry& e : links)
    if (name == e.model->name()) return *e.model;
  throw config_error("link '" + name + "' does not exist");
}

const switch_model* fabric::switch_named(const std::string& name) const {
  auto it = node_ids_.find(name);
  return it == node_ids_.end() ? nullptr : switch_of_node_[it->second];
}

const std::string& fabric::peer_of(const std::string& node, int port) const {
  return scenario_.topology.nodes[graph_->peer[node_ids_.at(node)].at(port)].name;
}

void fabric::make_policies() {
  for (auto& sw : switches) {
    const order_scope scope = node_scope(sw->node_id());
    sw->make_policies();
  }
  for (auto& n : nics) {
    const order_scope scope = node_scope(n->node_id());
    n->make_policies();
  }
}

void fabric::choose_congestion_control(const std::string& all) {
  // class -> scheme, set once per class below. A scheme without a congestion point (timely)
  // does not claim a class another flow's scheme needs a congestion point on.
  std::map<int, const cc_scheme*> cp_by_class;
  cc_of_flow_.assign(flows.size(), nullptr);
  for (const flow& f : flows) {
    const std::string& name = all.empty() ? f.spec.cc : all;
    if (name.empty()) continue;
    const std::string key = all.empty() ? "traffic: cc" : "--cc";
    const cc_scheme& cc = cc_scheme_registry::instance().named(name, key);
    cc_scheme_registry::instance().check_fabric(cc, scenario_.topology.layer == link_layer::ib, key);
    if (owns(f.spec.src)) nic_of_node_[f.spec.src]->rp.set_from_string(cc.rp);
    if (owns(f.spec.dst)) nic_of_node_[f.spec.dst]->np.set_from_string(cc.np);
    cc_of_flow_[f.id] = &cc;
    if (cc.cp != "none" || !cp_by_class.count(f.spec.priority)) cp_by_class[f.spec.priority] = &cc;
    if (std::find(chosen_.begin(), chosen_.end(), &cc) == chosen_.end()) chosen_.push_back(&cc);
  }
  for (auto& sw : switches)
    for (auto& port : sw->ports)
      for (const auto& [cls, cc] : cp_by_class)
        if (port->cp.value(cls) != cc->cp) port->cp[cls].set_from_string(cc->cp);  // unnamed classes stay unmade
  // Each chosen scheme declares its scheme-wide parameters once and makes its switch-side
  // observers, if it has any.
  for (const cc_scheme* cc : chosen_) {
    if (cc->declare) cc->declare();
    if (cc->observer)
      for (auto& sw : switches) {
        const order_scope scope = node_scope(sw->node_id());
        if (auto o = cc->observer(*sw)) observers_.push_back(std::move(o));
      }
  }
}

void fabric::arm_resequencing(const std::function<bool(bool)>& any_over_parts) {
  bool reorders = false, source_routed = false;
  for (const auto& sw : switches) {
    const std::string& policy = sw->forwarding.policy();
    reorders |= policy.rfind("adaptive", 0) == 0 || policy == "random";
  }
  for (const auto& n : nics) source_routed |= n->routing.on() && !n->flows_sent().empty();
  if (any_over_parts) {
    reorders = any_over_parts(reorders);
    source_routed = any_over_parts(source_routed);
  }
  if (source_routed)
    for (uint32_t id = 0; id < switch_of_node_.size(); ++id)
      if (switch_of_node_[id]) switch_of_node_[id]->forwarding.table.honour_paths(scenario_.topology.nodes[id].tier);
  for (auto& n : nics) {
    const order_scope scope = node_scope(n->node_id());
    n->set_resequencing(reorders || source_routed);
  }
}

void fabric::check_policies() const {
  if (scenario_.topology.selection == path_selection::d_mod_k)
    for (const auto& n : nics)
      if (n->routing.on() && !n->flows_sent().empty())
        throw config_error(n->routing.routing.name() +
                           ": 'r3c2' needs the switches' equal-cost ports, and platform routing 'd-mod-k' keeps one");
  for (const auto& sw : switches) sw->check_policies();
  for (const auto& n : nics) n->check_policies();
  check_credits();
  check_congestion_points();
}

// One-line errors for a credit fabric that cannot carry its traffic (PFC set on its ports is an
// inert setting: platforms/inert_settings.*).
void fabric::check_credits() const {
  std::set<int> sls;
  for (const flow& fl : flows) sls.insert(fl.spec.priority);
  auto missing = [](const credit_flow_control& c, int vl) {
    return vl != credit_flow_control::management_vl && vl >= static_cast<int>(c.vls());
  };
  for (const link_entry& e : links)
    for (const auto& [from, to] : {std::pair{&e.a, &e.b}, std::pair{&e.b, &e.a}}) {
      if (!from->credits || !to->credits) continue;  // (a partitioned run does not check cut links)
      for (int sl : sls) {
        const int vl = from->credits->vl_of(sl);
        const std::string via = " (SL " + std::to_string(sl) + " from " + from->credits->name() + ")";
        if (missing(*from->credits, vl))
          throw config_error(from->credits->sl2vl[sl]->name() + ": '" + std::to_string(vl) + "' maps SL " +
                             std::to_string(sl) + " to a VL the port does not have (" + from->credits->vls.name() +
                             " = " + std::to_string(from->credits->vls()) + ")");
        if (missing(*to->credits, vl))
          throw config_error(to->credits->vls.name() + ": '" + std::to_string(to->credits->vls()) + "' leaves out VL " +
                             std::to_string(vl) + via);
        if (!to->credits->has_vl(vl))
          throw config_error(to->credits->buffer[vl]->name() + ": '" + to->credits->buffer[vl]->value_string() +
                             "' leaves VL " + std::to_string(vl) + " without credits" + via);
      }
    }
}

// A flow whose scheme has a congestion point needs exactly that one on every switch queue of
// its class that any of its paths (every ECMP branch) crosses: an override that removed or
// replaced it there would leave the flow's reaction point without (or with foreign) feedback.
void fabric::check_congestion_points() const {
  if (cc_of_flow_.empty()) return;  // choose_congestion_control was not called
  std::vector<char> seen(switch_of_node_.size());
  std::vector<uint32_t> todo;
  for (const flow& f : flows) {
    const cc_scheme* cc = cc_of_flow_[f.id];
    if (!cc || cc->cp == "none") continue;
    std::fill(seen.begin(), seen.end(), 0);
    todo.assign(1, graph_->peer[f.spec.src].at(0));  // a NIC's one port
    while (!todo.empty()) {
      const uint32_t node = todo.back();
      todo.pop_back();
      const switch_model* sw = switch_of_node_[node];
      if (!sw || seen[node]) continue;
      seen[node] = 1;
      for (uint16_t port : sw->forwarding.table.ports(f.spec.dst)) {
        const class_params<choice_param>& cp = sw->ports[port]->cp;
        if (cp.value(f.spec.priority) != cc->cp)
          throw config_error(cp.name(f.spec.priority) + ": '" + cp.value(f.spec.priority) + "' leaves flow " +
                             f.spec.name + " (cc " + cc->name + ") without its congestion point '" + cc->cp + "'");
        todo.push_back(graph_->peer[node][port]);
      }
    }
  }
}

std::vector<std::size_t> apply_overrides(const std::vector<std::pair<std::string, std::string>>& overrides,
                                         const std::string& origin, bool require_match) {
  try {
    return param_registry::instance().set_each(overrides, require_match);
  } catch (const config_error& e) {
    throw config_error(origin + ": " + e.what());
  }
}

}  // namespace sluice
