#include "platforms/waveform.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "models/cc/congestion_point.h"
#include "models/core/params.h"

namespace sluice {

namespace {
// verdict: a congestion point's state.
enum family {
  queue = 0,
  pause = 1,
  credit = 2,
  rate = 3,
  total = 4,
  marks = 5,
  verdict = 6,
  credits = 7,
  feedback = 8
};

// "sw0.port4.egress.enqueue" -> "sw0.port4": a point's name less its last two parts.
std::string port_of(const probe_point& p) {
  std::string n = p.name();
  for (int i = 0; i < 2; ++i) n.erase(n.rfind('.'));
  return n;
}
}  // namespace

waveform::waveform(const waveform_options& options, int classes,
                   const std::vector<std::pair<uint32_t, std::string>>& flows, cp_state_reader cp_state)
    : options_(options), cp_state_(std::move(cp_state)) {
  probe_registry& reg = probe_registry::instance();
  std::vector<bool> used(options.patterns.size(), false);
  auto wanted = [&](const std::string& name) {
    bool any = false;
    for (std::size_t i = 0; i < options.patterns.size(); ++i)
      if (glob_match(options.patterns[i].c_str(), name.c_str())) any = used[i] = true;
    return any;
  };
  // Every candidate signal, each tied to the probe sources that drive it.
  for (const probe_point* p : reg.points("*.egress.enqueue")) {
    const std::string port = port_of(*p);
    const std::string sw = port.substr(0, port.find('.'));
    const std::string sum = sw + ".queued_bytes";
    for (int c = 0; c < classes; ++c) {
      const std::string name = port + ".prio" + std::to_string(c) + ".queue_bytes";
      if (wanted(name)) signal_of_[{p->source, static_cast<uint32_t>(c), queue}] = add_signal(name, false);
    }
    for (int c = 0; c < classes; ++c) {
      const std::string name = port + ".prio" + std::to_string(c) + ".marks";
      if (wanted(name)) signal_of_[{p->source, static_cast<uint32_t>(c), marks}] = add_signal(name, false);
      const std::string state = port + ".prio" + std::to_string(c) + ".cp_state";
      if (cp_state_ && cp_state_(p->source, c) >= 0 && wanted(state))
        signal_of_[{p->source, static_cast<uint32_t>(c), verdict}] = add_signal(state, false);
    }
    if (wanted(sum)) {
      auto it = std::find(names_.begin(), names_.end(), sum);
      const int32_t s = it == names_.end() ? add_signal(sum, false) : static_cast<int32_t>(it - names_.begin());
      total_of_[p->source] = s;
    }
  }
  for (const probe_point* p : reg.points("*.pfc.pause_on"))
    for (int c = 0; c < std::min(classes, 8); ++c) {
      const std::string name = port_of(*p) + ".prio" + std::to_string(c) + ".paused";
      if (wanted(name)) signal_of_[{p->source, static_cast<uint32_t>(c), pause}] = add_signal(name, true);
    }
  for (const probe_point* p : reg.points("*.credit.credit_starved"))
    for (int c = 0; c < classes; ++c) {
      const std::string name = port_of(*p) + ".vl" + std::to_string(c) + ".credit_starved";
      if (wanted(name)) signal_of_[{p->source, static_cast<uint32_t>(c), credit}] = add_signal(name, true);
    }
  for (const probe_point* p : reg.points("*.credit.credits"))
    for (int c = 0; c < classes; ++c) {
      const std::string name = port_of(*p) + ".vl" + std::to_string(c) + ".credits";
      if (wanted(name)) signal_of_[{p->source, static_cast<uint32_t>(c), credits}] = add_signal(name, false);
    }
  // "sw0.port4.prio3.qcn.sample" -> "sw0.port4.prio3.fb": one sampling CP per port and class.
  for (const probe_point* p : reg.points("*.sample"))
    if (p->kind == &probes::cp_sample) {
      std::string name = p->name();
      for (int i = 0; i < 2; ++i) name.erase(name.rfind('.'));
      name += ".fb";
      if (wanted(name)) signal_of_[{p->source, 0u, feedback}] = add_signal(name, false);
    }
  for (const probe_point* p : reg.points("*.rate_change")) {
    const std::string nic = p->name().substr(0, p->name().rfind('.'));
    for (const auto& [id, src] : flows) {
      const std::string name = nic + ".flow" + std::to_string(id) + ".rate";
      if (src == nic && wanted(name)) signal_of_[{p->source, id, rate}] = add_signal(name, false);
    }
  }
  for (std::size_t i = 0; i < options.patterns.size(); ++i)
    if (!used[i])
      throw config_error("--trace: '" + options.patterns[i] +
                         "' matches no signal (e.g. sw0.port4.prio3.queue_bytes, sw0.queued_bytes, "
                         "h0.port0.prio3.paused, h0.port0.vl0.credit_starved, h0.flow0.rate, "
                         "sw0.port4.prio3.marks, sw0.port4.prio3.cp_state, h0.port0.vl3.credits, sw0.port4.prio3.fb)");
  total_now_.assign(names_.size(), 0);
  state_now_.assign(names_.size(), -1);
  // Subscribe to the points that drive a recorded signal.
  auto drives = [&](const void* source, int fam) {
    for (const auto& [k, s] : signal_of_)
      if (std::get<0>(k) == source && std::get<2>(k) == fam) return true;
    return false;
  };
  for (const char* leaf : {"*.egress.enqueue", "*.egress.dequeue"})
    for (const probe_point* p : reg.points(leaf))
      if (drives(p->source, queue) || drives(p->source, verdict) || total_of_.count(p->source))
        reg.subscribe(p->name(), [this](const probe_point& pt, const probe_event& e) { on_queue(pt, e); });
  auto subscribe_state = [&](const char* leaf, int fam, uint64_t value) {
    for (const probe_point* p : reg.points(leaf))
      if (drives(p->source, fam))
        reg.subscribe(p->name(), [this, fam, value](const probe_point& pt, const probe_event& e) {
          auto it = signal_of_.find({pt.source, static_cast<uint32_t>(e.cls), fam});
          if (it != signal_of_.end()) record(it->second, e.time_ps, value);
        });
  };
  subscribe_state("*.pfc.pause_on", pause, 1);
  subscribe_state("*.pfc.pause_off", pause, 0);
  subscribe_state("*.credit.credit_starved", credit, 1);
  subscribe_state("*.credit.credit_resumed", credit, 0);
  for (const probe_point* p : reg.points("*.credit.credits"))
    if (drives(p->source, credits))
      reg.subscribe(p->name(), [this](const probe_point& pt, const probe_event& e) {
        auto it = signal_of_.find({pt.source, static_cast<uint32_t>(e.cls), credits});
        if (it != signal_of_.end()) record(it->second, e.time_ps, e.value);
      });
  for (const probe_point* p : reg.points("*.egress.mark"))
    if (drives(p->source, marks))
      reg.subscribe(p->name(), [this](const probe_point& pt, const probe_event& e) {
        auto it = signal_of_.find({pt.source, static_cast<uint32_t>(e.cls), marks});
        if (it != signal_of_.end()) record(it->second, e.time_ps, ++total_now_[it->second]);
      });
  for (const probe_point* p : reg.points("*.sample"))
    if (p->kind == &probes::cp_sample && drives(p->source, feedback))
      reg.subscribe(p->name(), [this](const probe_point& pt, const probe_event& e) {
        record(signal_of_.at({pt.source, 0u, feedback}), e.time_ps, e.value);
      });
  for (const probe_point* p : reg.points("*.rate_change"))
    if (drives(p->source, rate))
      reg.subscribe(p->name(), [this](const probe_point& pt, const probe_event& e) {
        auto it = signal_of_.find({pt.source, e.flow_id, rate});
        if (it != signal_of_.end()) record(it->second, e.time_ps, e.value);
      });
}

int32_t waveform::add_signal(const std::string& name, bool one_bit) {
  names_.push_back(name);
  one_bit_.push_back(one_bit);
  return static_cast<int32_t>(names_.size() - 1);
}

void waveform::on_queue(const probe_point& p, const probe_event& e) {
  const auto cls = static_cast<uint32_t>(e.cls);
  if (auto it = signal_of_.find({p.source, cls, queue}); it != signal_of_.end()) record(it->second, e.time_ps, e.value);
  // The congestion point saw the frame just before this event: its state is the one it left.
  if (auto it = signal_of_.find({p.source, cls, verdict}); it != signal_of_.end()) {
    const int64_t state = cp_state_(p.source, e.cls);
    if (state != state_now_[it->second]) record(it->second, e.time_ps, static_cast<uint64_t>(state));
    state_now_[it->second] = state;
  }
  if (auto t = total_of_.find(p.source); t != total_of_.end()) {
    uint64_t& depth = depth_[{p.source, cls, total}];
    uint64_t& sum = total_now_[t->second];
    sum = sum - depth + e.value;
    depth = e.value;
    record(t->second, e.time_ps, sum);
  }
}

void waveform::record(uint32_t signal, uint64_t time_ps, uint64_t value) {
  if (changes_.size() >= max_changes) {
    ++over_;
    return;
  }
  changes_.push_back({time_ps, signal, value});
}

namespace {
// VCD identifiers: short codes over the printable characters '!'..'~'.
std::string code_of(uint32_t i) {
  std::string c;
  do {
    c += static_cast<char>('!' + i % 94);
    i /= 94;
  } while (i);
  return c;
}
void put_value(std::string& out, bool one_bit, uint64_t v, const std::string& code) {
  if (one_bit) {
    out += v ? '1' : '0';
  } else {
    out += 'b';
    if (!v) out += '0';
    for (int b = 63 - (v ? __builtin_clzll(v) : 63); b >= 0 && v; --b) out += (v >> b & 1) ? '1' : '0';
    out += ' ';
  }
  out += code;
  out += '\n';
}
}  // namespace

void waveform::finish(uint64_t end_ps) {
  // Probe times are the models' times; a few points publish a time other than the current one
  // (a pause's end): order the changes by time, keeping each signal's order of arrival.
  std::stable_sort(changes_.begin(), changes_.end(),
                   [](const change& a, const change& b) { return a.time_ps < b.time_ps; });
  std::ofstream out(options_.path);
  if (!out) throw config_error("--vcd: cannot write '" + options_.path + "'");
  out << "$version Sluice $end\n$timescale 1ps $end\n";
  // Scopes from the names' parts: sw0 > port4 > prio3 > queue_bytes.
  std::vector<std::size_t> order(names_.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return names_[a] < names_[b]; });
  std::vector<std::string> open;
  for (std::size_t i : order) {
    std::vector<std::string> parts;
    for (std::size_t at = 0, dot; at <= names_[i].size(); at = dot + 1) {
      dot = std::min(names_[i].find('.', at), names_[i].size());
      parts.push_back(names_[i].substr(at, dot - at));
    }
    const std::string leaf = parts.back();
    parts.pop_back();
    std::size_t common = 0;
    while (common < open.size() && common < parts.size() && open[common] == parts[common]) ++common;
    for (std::size_t k = open.size(); k > common; --k) out << "$upscope $end\n";
    open.resize(common);
    for (std::size_t k = common; k < parts.size(); ++k) {
      out << "$scope module " << parts[k] << " $end\n";
      open.push_back(parts[k]);
    }
    out << "$var " << (one_bit_[i] ? "wire 1 " : "integer 64 ") << code_of(static_cast<uint32_t>(i)) << ' ' << leaf
        << " $end\n";
  }
  for (std::size_t k = open.size(); k > 0; --k) out << "$upscope $end\n";
  out << "$enddefinitions $end\n";
  // Values at the window's start (0 before any change), then every change inside it.
  std::vector<uint64_t> now(names_.size(), 0);
  std::size_t next = 0;
  for (; next < changes_.size() && changes_[next].time_ps < options_.from_ps; ++next)
    now[changes_[next].signal] = changes_[next].value;
  std::string text = "#" + std::to_string(options_.from_ps) + "\n$dumpvars\n";
  for (std::size_t i = 0; i < names_.size(); ++i)
    put_value(text, one_bit_[i], now[i], code_of(static_cast<uint32_t>(i)));
  text += "$end\n";
  // One time step at a time; a signal that changes several times within one picosecond (a
  // burst of enqueues) shows its last value only.
  uint64_t at = options_.from_ps;
  std::vector<int64_t> step_value(names_.size(), -1);
  std::vector<uint32_t> touched;
  while (next < changes_.size() && changes_[next].time_ps < options_.to_ps) {
    const uint64_t t = changes_[next].time_ps;
    touched.clear();
    for (; next < changes_.size() && changes_[next].time_ps == t; ++next) {
      const change& c = changes_[next];
      if (step_value[c.signal] < 0) touched.push_back(c.signal);
      step_value[c.signal] = static_cast<int64_t>(c.value);
    }
    std::sort(touched.begin(), touched.end());
    bool stamped = false;
    for (uint32_t sig : touched) {
      const auto v = static_cast<uint64_t>(step_value[sig]);
      step_value[sig] = -1;
      if (v == now[sig]) continue;  // no change: VCD lists changes only
      if (!stamped && t != at) {
        at = t;
        text += '#';
        text += std::to_string(at);
        text += '\n';
      }
      stamped = true;
      now[sig] = v;
      put_value(text, one_bit_[sig], v, code_of(sig));
    }
    if (text.size() > (1 << 20)) {
      out << text;
      text.clear();
    }
  }
  const uint64_t last = std::min(end_ps, options_.to_ps);
  if (last > at) text += "#" + std::to_string(last) + "\n";
  out << text;
  if (!out.flush()) throw config_error("--vcd: cannot write '" + options_.path + "': " + std::strerror(errno));
}

}  // namespace sluice
