#include "platforms/frame_trace.h"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>

#include "models/core/frame_kinds.h"
#include "models/core/params.h"
#include "platforms/fabric.h"

namespace sluice {

namespace {
// The points a trace follows: every MAC's wire events, every egress queue's, marks and drops.
constexpr const char* traced[] = {"*.mac.tx_start",   "*.mac.rx_end",  "*.egress.enqueue",
                                  "*.egress.dequeue", "*.egress.mark", "*.drop"};
}  // namespace

frame_trace_filter frame_trace_filter::parse(const std::string& filter, const flow_table& flows,
                                             const std::string& key) {
  frame_trace_filter out;
  std::size_t at = 0;
  while (at <= filter.size()) {
    const std::size_t comma = std::min(filter.find(',', at), filter.size());
    const std::string term = filter.substr(at, comma - at);
    const std::size_t eq = term.find('=');
    const std::string name = term.substr(0, eq), value = eq == std::string::npos ? "" : term.substr(eq + 1);
    if (eq == std::string::npos || value.empty())
      throw config_error(key + ": '" + term + "' must look like flow=N, kind=K[|K...] or id=N");
    if (name == "flow") {
      out.any_flow = false;
      bool found = false;
      for (const flow& fl : flows)
        if (fl.spec.name == value || std::to_string(fl.id) == value) {
          out.flow_id = fl.id;
          found = true;
          break;
        }
      if (!found) throw config_error(key + ": flow '" + value + "' is not a flow of this run (an id or a name)");
    } else if (name == "kind") {
      out.any_kind = false;
      std::size_t k_at = 0;
      while (k_at <= value.size()) {
        const std::size_t bar = std::min(value.find('|', k_at), value.size());
        const std::string k = value.substr(k_at, bar - k_at);
        const frame_kind_info* info = frame_kind_registry::instance().find(k);
        if (!info) {
          std::string known;
          for (const frame_kind_info* i : frame_kind_registry::instance().kinds())
            known += (known.empty() ? "" : ", ") + i->name;
          throw config_error(key + ": '" + k + "' is not a frame kind (one of {" + known + "})");
        }
        out.kinds |= 1u << static_cast<int>(info->kind);
        k_at = bar + 1;
      }
    } else if (name == "id") {
      out.any_id = false;
      const char* end = value.data() + value.size();
      if (std::from_chars(value.data(), end, out.id).ptr != end)
        throw config_error(key + ": id '" + value + "' is not a frame id (digits)");
    } else {
      throw config_error(key + ": '" + name + "' is not a filter term (flow, kind or id)");
    }
    at = comma + 1;
  }
  return out;
}

frame_trace::frame_trace(const std::string& filter, const fabric& f, const std::string& key)
    : filter_(frame_trace_filter::parse(filter, f.flows, key)) {
  rows_.reserve(1024);
  probe_registry& probes = probe_registry::instance();
  for (const char* pattern : traced)
    if (!probes.points(pattern).empty())
      probes.subscribe(
          pattern, [this](const probe_point& p, const probe_event& e) { record(p, e); }, key);
}

void frame_trace::record(const probe_point& p, const probe_event& e) {
  if (!e.frame) return;
  const frame_fields& f = *e.frame;
  // A flow's frames are its data and the feedback about it; link-local frames (PFC, credits)
  // carry no flow.
  if (!filter_.any_flow &&
      (f.flow_id != filter_.flow_id || frame_kind_registry::instance().role(f.kind) == frame_role::link_local))
    return;
  if (!filter_.any_kind && !(filter_.kinds >> static_cast<int>(f.kind) & 1)) return;
  if (!filter_.any_id && f.id() != filter_.id) return;
  if (rows_.size() >= max_rows) {
    ++over_;
    return;
  }
  const bool queue_event = p.kind == &probes::enqueue || p.kind == &probes::dequeue;
  rows_.push_back({f.id(), e.time_ps, &p, f.flow_id, f.size, queue_event ? e.value : ~0ull,
                   static_cast<uint8_t>(f.kind), static_cast<int8_t>(e.cls)});
}

std::string frame_trace::event_of(const probe_point& p) { return p.kind->leaf(); }

std::string frame_trace::at_of(const probe_point& p) {
  const std::string n = p.name();
  return n.substr(0, n.size() - std::strlen(p.kind->leaf()) - 1);
}

void frame_trace::write_csv(const std::string& path) const {
  std::ofstream out(path);
  if (!out) throw config_error("--out: cannot write '" + path + "'");
  out << "frame_id,time_ns,event,at,node,kind,flow,class,bytes,queue_bytes\n";
  std::string line;
  char buf[32];
  auto number = [&](uint64_t v) { line.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr); };
  for (const row& r : rows_) {
    line.clear();
    number(r.id);
    line += ',';
    number(r.time_ps / 1000);  // ns with three decimals: the picosecond, exactly
    line += '.';
    const uint64_t frac = r.time_ps % 1000;
    line += static_cast<char>('0' + frac / 100);
    line += static_cast<char>('0' + frac / 10 % 10);
    line += static_cast<char>('0' + frac % 10);
    line += ',';
    line += r.point->kind->leaf();
    line += ',';
    const std::string at = at_of(*r.point);
    line += at;
    line += ',';
    line += at.substr(0, at.find('.'));
    line += ',';
    const frame_kind_info* k = frame_kind_registry::instance().find(static_cast<frame_kind>(r.kind));
    line += k ? k->name : std::to_string(r.kind);
    line += ',';
    number(r.flow);
    line += ',';
    if (r.cls >= 0) number(static_cast<uint64_t>(r.cls));
    line += ',';
    number(r.bytes);
    line += ',';
    if (r.queue != ~0ull) number(r.queue);
    line += '\n';
    out.write(line.data(), static_cast<std::streamsize>(line.size()));
  }
  if (!out.flush()) throw config_error("--out: cannot write '" + path + "': " + std::strerror(errno));
}

}  // namespace sluice
