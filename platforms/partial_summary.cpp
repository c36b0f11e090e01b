#include "platforms/partial_summary.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <stdexcept>

#include "platforms/simulation.h"
#include "platforms/summary_sink.h"

namespace sluice {
namespace {

using nlohmann::json;

double ns(uint64_t ps) { return static_cast<double>(ps) / 1e3; }

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  std::size_t idx = static_cast<std::size_t>(std::ceil(p * static_cast<double>(v.size())));
  return v[std::min(v.size() - 1, idx == 0 ? 0 : idx - 1)];
}

[[noreturn]] void bad_partial(const std::string& what) { throw std::runtime_error("merging partial outputs: " + what); }

const json& raw_material(const json& partial) {
  if (!partial.is_object() || !partial.contains("_partial")) bad_partial("a summary without \"_partial\"");
  return partial["_partial"];
}

// Entries of one array member of every partial, in the single run's order (their order keys).
json merged_by_key(const std::vector<json>& partials, const char* member, const char* keys) {
  std::vector<std::pair<uint64_t, const json*>> all;
  for (const json& p : partials) {
    const json& entries = p.at(member);
    const json& order = raw_material(p).at(keys);
    if (entries.size() != order.size()) bad_partial(std::string(member) + " and their order keys differ in number");
    for (std::size_t i = 0; i < entries.size(); ++i) all.emplace_back(order[i].get<uint64_t>(), &entries[i]);
  }
  std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  json out = json::array();
  for (const auto& [key, entry] : all) out.push_back(*entry);
  return out;
}

// Element-wise sum of per-sample counts (a partial without such columns has none).
void add_counts(std::vector<std::size_t>& sum, const json& counts) {
  if (counts.size() > sum.size()) sum.resize(counts.size(), 0);
  for (std::size_t i = 0; i < counts.size(); ++i) sum[i] += counts[i].get<std::size_t>();
}

}  // namespace

// The integer sums, named once for adding, sending and receiving them.
const std::pair<const char*, uint64_t summary_raw::*> raw_sums[] = {
    {"drops", &summary_raw::drops},
    {"lossless_drops", &summary_raw::lossless_drops},
    {"pause_frames", &summary_raw::pause_frames},
    {"credit_packets", &summary_raw::credit_packets},
    {"cnp_frames", &summary_raw::cnp_frames},
    {"cnm_frames", &summary_raw::cnm_frames},
    {"ack_frames", &summary_raw::ack_frames},
    {"unroutable", &summary_raw::unroutable},
    {"misdelivered", &summary_raw::misdelivered},
    {"paused_port_ps", &summary_raw::paused_port_ps},
    {"packet_hops", &summary_raw::packet_hops},
    {"trace_dropped_rows", &summary_raw::trace_dropped_rows}};

summary_raw& summary_raw::operator+=(const summary_raw& o) {
  for (const auto& [name, sum] : raw_sums) this->*sum += o.*sum;
  for (const auto& [kind, n] : o.other_feedback) other_feedback[kind] += n;
  fecn_marks += o.fecn_marks;  // whole numbers: exact in any order
  wall_s = std::max(wall_s, o.wall_s);
  elaboration_s = std::max(elaboration_s, o.elaboration_s);
  return *this;
}

json summary_raw::to_json() const {
  json j = {{"other_feedback", other_feedback},
            {"fecn_marks", fecn_marks},
            {"wall_s", wall_s},
            {"elaboration_s", elaboration_s},
            {"now_ps", now_ps},
            {"flows", flows},
            {"ib", ib}};
  for (const auto& [name, sum] : raw_sums) j[name] = this->*sum;
  return j;
}

summary_raw summary_raw::from_json(const json& j) {
  summary_raw r;
  for (const auto& [name, sum] : raw_sums) r.*sum = j.at(name).get<uint64_t>();
  r.other_feedback = j.at("other_feedback").get<std::map<std::string, uint64_t>>();
  r.fecn_marks = j.at("fecn_marks").get<double>();
  r.wall_s = j.at("wall_s").get<double>();
  r.elaboration_s = j.at("elaboration_s").get<double>();
  r.now_ps = j.at("now_ps").get<uint64_t>();
  r.flows = j.at("flows").get<uint64_t>();
  r.ib = j.at("ib").get<bool>();
  return r;
}

json summary_totals(const summary_raw& raw, const std::vector<double>& fcts, uint64_t completed) {
  double mean_fct = 0;
  for (double v : fcts) mean_fct += v;
  if (!fcts.empty()) mean_fct /= static_cast<double>(fcts.size());
  json totals = {{"drops", raw.drops},
                 {"lossless_drops", raw.lossless_drops},
                 {"pause_frames", raw.pause_frames},
                 {"cnp_frames", raw.cnp_frames},
                 {"cnm_frames", raw.cnm_frames},
                 {"packet_hops", raw.packet_hops},
                 {"sim_time_ns", ns(raw.now_ps)},
                 {"wall_time_s", raw.wall_s},
                 {"elaboration_s", raw.elaboration_s},
                 {"flows", raw.flows},
                 {"flows_completed", completed},
                 {"mean_fct_ns", fcts.empty() ? json(nullptr) : json(mean_fct)},
                 {"p99_fct_ns", fcts.empty() ? json(nullptr) : json(percentile(fcts, 0.99))}};
  if (raw.ack_frames) totals["ack_frames"] = raw.ack_frames;  // transport ACKs, when any NIC sends them
  // A feedback kind a scheme registered beyond the shipped ones: "<name>_frames", when any arrived.
  for (const auto& [kind, n] : raw.other_feedback)
    if (n) totals[kind] = n;
  if (raw.ib) {  // on InfiniBand every CNP carries a BECN
    totals["credit_packets"] = raw.credit_packets;
    totals["fecn_marks"] = static_cast<uint64_t>(raw.fecn_marks);
    totals["becn_frames"] = raw.cnp_frames;
  }
  return totals;
}

void append_tail_warnings(const summary_raw& raw, json& warnings) {
  if (raw.unroutable) warnings.push_back(std::to_string(raw.unroutable) + " frames had no route");
  if (raw.misdelivered) warnings.push_back(std::to_string(raw.misdelivered) + " frames reached the wrong NIC");
  if (raw.trace_dropped_rows)
    warnings.push_back("frame trace stopped at " + std::to_string(frame_trace::max_rows) + " rows: " +
                       std::to_string(raw.trace_dropped_rows) + " later events not kept (narrow --trace-frames)");
}

json held_per_sample(const sampler& s, const fabric& f) {
  // A pair was held within a sample exactly when its fraction of the sample is above zero.
  auto counts = [&](const series& fractions) {
    std::vector<std::size_t> held;
    held.reserve(fractions.rows.size());
    for (series_rows::const_row row : fractions.rows) {
      std::size_t n = 0;
      for (std::size_t c = 0; c < row.size(); ++c) n += row[c] > 0 && f.owns(fractions.column_nodes[c]);
      held.push_back(n);
    }
    return held;
  };
  return {{"times_us", s.paused_fraction.times_us},
          {"paused", counts(s.paused_fraction)},
          {"credit_blocked", counts(s.credit_blocked_fraction)}};
}

json congestion_tree(const json& held, const summary_raw& raw) {
  // The sampler's rule: the first sample with the most pairs held.
  auto most = [&](const json& counts, const char* key, const char* at_key, json& tree) {
    std::size_t most = 0;
    double at_us = 0;
    for (std::size_t i = 0; i < counts.size(); ++i)
      if (counts[i].get<std::size_t>() > most) {
        most = counts[i].get<std::size_t>();
        at_us = held.at("times_us").at(i).get<double>();
      }
    tree[key] = most;
    tree[at_key] = at_us;
  };
  json tree = json::object();
  most(held.at("paused"), "max_ports_paused", "max_ports_paused_at_us", tree);
  tree["paused_port_time_ns"] = ns(raw.paused_port_ps);
  if (raw.ib) most(held.at("credit_blocked"), "max_ports_credit_blocked", "max_ports_credit_blocked_at_us", tree);
  return tree;
}

json partial_summary(const simulation& sim, bool process_level) {
  return summary_document([&](summary_sink& out) { sim.emit_partial_summary(out, process_level); });
}

json merge_summaries(const std::vector<json>& partials) {
  if (partials.empty()) bad_partial("no partials");
  const json& first = partials.front();
  summary_raw raw = summary_raw::from_json(raw_material(first).at("raw"));
  for (std::size_t i = 1; i < partials.size(); ++i) raw += summary_raw::from_json(raw_material(partials[i]).at("raw"));

  json held = {{"times_us", json::array()}, {"paused", json::array()}, {"credit_blocked", json::array()}};
  std::vector<std::size_t> paused, blocked;
  for (const json& p : partials) {
    const json& h = raw_material(p).at("held");
    add_counts(paused, h.at("paused"));
    add_counts(blocked, h.at("credit_blocked"));
    if (h.at("times_us").size() > held["times_us"].size()) held["times_us"] = h.at("times_us");
  }
  held["paused"] = paused;
  held["credit_blocked"] = blocked;

  json merged = json::object();
  merged["congestion_tree"] = congestion_tree(held, raw);

  // Counters of objects are in one partial each; process-level ones ("sluice.*") are summed.
  json counters = json::object();
  for (const json& p : partials)
    for (const auto& counter : p.at("counters").items()) {
      auto it = counters.find(counter.key());
      if (it == counters.end())
        counters[counter.key()] = counter.value();
      else
        *it = it->get<double>() + counter.value().get<double>();
    }
  merged["counters"] = std::move(counters);

  json deadlocks = json::array();  // each partition's, in detection order
  for (const json& p : partials)
    for (const json& d : p.at("deadlocks")) deadlocks.push_back(d);
  std::stable_sort(deadlocks.begin(), deadlocks.end(), [](const json& a, const json& b) {
    return a.at("detected_us").get<double>() < b.at("detected_us").get<double>();
  });
  merged["deadlocks"] = std::move(deadlocks);

  // A flow's sender half and receiver half, joined by id, in id order.
  json flows = json::array();
  for (uint64_t id = 0; id < raw.flows; ++id) flows.push_back(json(nullptr));
  for (const json& p : partials)
    for (const json& fl : p.at("flows")) {
      const uint64_t id = fl.at("id").get<uint64_t>();
      if (id >= raw.flows) bad_partial("flow " + std::to_string(id) + " beyond the " + std::to_string(raw.flows));
      if (flows[id].is_null())
        flows[id] = fl;
      else
        flows[id].update(fl);
    }
  std::vector<double> fcts;
  uint64_t completed = 0;
  for (uint64_t id = 0; id < raw.flows; ++id) {
    const json& fl = flows[id];
    if (!fl.contains("tx_bytes") || !fl.contains("rx_bytes"))
      bad_partial("flow " + std::to_string(id) + " lacks its " + (fl.contains("rx_bytes") ? "sender" : "receiver") +
                  " half (no partial owns that NIC)");
    if (fl.at("completed").get<bool>()) {
      ++completed;
      fcts.push_back(fl.at("fct_ns").get<double>());
    }
  }
  merged["flows"] = std::move(flows);
  merged["links"] = merged_by_key(partials, "links", "link_keys");
  merged["ports"] = merged_by_key(partials, "ports", "port_keys");
  merged["provenance"] = first.at("provenance");
  merged["scenario"] = first.at("scenario");
  merged["seed"] = first.at("seed");
  merged["totals"] = summary_totals(raw, fcts, completed);

  // The settings' warnings (the same in every partial), then the ports' in port order, then
  // the sums'.
  json warnings = raw_material(first).at("global_warnings");
  std::vector<std::pair<uint64_t, std::string>> port_warnings;
  for (const json& p : partials)
    for (const json& w : raw_material(p).at("port_warnings"))
      port_warnings.emplace_back(w.at(0).get<uint64_t>(), w.at(1).get<std::string>());
  std::stable_sort(port_warnings.begin(), port_warnings.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [key, text] : port_warnings) warnings.push_back(std::move(text));
  append_tail_warnings(raw, warnings);
  merged["warnings"] = std::move(warnings);
  return merged;
}

json partial_series(const simulation& sim) {
  const sampler& s = sim.samples();
  const fabric& f = sim.fabric_model();
  json out = {{"order", json::array()}, {"series", json::object()}};
  for (const auto& [name, ser] : s.all_series()) {
    std::vector<std::size_t> mine;  // the owned columns (not the derived workload column)
    for (std::size_t c = 0; c < ser->columns.size(); ++c)
      if (ser->column_nodes[c] != UINT32_MAX && f.owns(ser->column_nodes[c])) mine.push_back(c);
    json columns = json::array(), keys = json::array(), rows = json::array();
    for (std::size_t c : mine) {
      columns.push_back(ser->columns[c]);
      keys.push_back(ser->column_keys[c]);
    }
    for (series_rows::const_row row : ser->rows) {
      std::vector<double> values;
      values.reserve(mine.size());
      for (std::size_t c : mine) values.push_back(row[c]);
      rows.push_back(std::move(values));
    }
    out["order"].push_back(name);
    out["series"][name] = {{"columns", std::move(columns)},
                           {"keys", std::move(keys)},
                           {"times_us", ser->times_us},
                           {"rows", std::move(rows)}};
  }
  if (s.has_workload_column()) {
    std::vector<uint64_t> bytes = s.workload_rx_bytes();
    const auto& by_receiver = s.workload_rx_bytes_by_receiver();
    if (!by_receiver.empty())
      for (std::size_t t = 0; t < by_receiver.size(); ++t) {
        bytes[t] = 0;
        for (uint32_t node = 0; node < by_receiver[t].size(); ++node)
          if (f.owns(node)) bytes[t] += by_receiver[t][node];
      }
    out["workload"] = {{"rx_bytes", std::move(bytes)}, {"times_ps", s.sample_times_ps()}};
  }
  return out;
}

std::vector<std::pair<std::string, series>> merge_series(const std::vector<json>& partials) {
  if (partials.empty()) bad_partial("no partial series");
  std::vector<std::pair<std::string, series>> out;
  for (const json& name_json : partials.front().at("order")) {
    const std::string name = name_json.get<std::string>();
    struct column {
      uint64_t key;
      const json* part;
      std::size_t index;
    };
    std::vector<column> columns;
    series merged;
    for (const json& p : partials) {
      const json& s = p.at("series").at(name);
      for (std::size_t c = 0; c < s.at("columns").size(); ++c) columns.push_back({s["keys"][c].get<uint64_t>(), &s, c});
      if (s.at("times_us").size() > merged.times_us.size()) merged.times_us = s["times_us"].get<std::vector<double>>();
    }
    std::stable_sort(columns.begin(), columns.end(), [](const column& a, const column& b) { return a.key < b.key; });
    for (const column& c : columns) {
      merged.columns.push_back(c.part->at("columns")[c.index].get<std::string>());
      merged.column_keys.push_back(c.key);
    }
    // The workload flows' column, the last, is the sampler's arithmetic on the bytes of every
    // receiver.
    const bool workload = name == "flow_throughput" && partials.front().contains("workload");
    const std::size_t width = columns.size() + workload;
    merged.rows.reserve(merged.times_us.size(), width);
    for (std::size_t r = 0; r < merged.times_us.size(); ++r) {  // a row at each sample, with columns or without
      double* row = merged.rows.append(width);
      for (std::size_t k = 0; k < columns.size(); ++k)
        row[k] = columns[k].part->at("rows").at(r)[columns[k].index].get<double>();
    }
    if (workload) {
      std::vector<uint64_t> bytes;
      for (const json& p : partials) {
        const json& rx = p.at("workload").at("rx_bytes");
        bytes.resize(std::max(bytes.size(), rx.size()), 0);
        for (std::size_t t = 0; t < rx.size(); ++t) bytes[t] += rx[t].get<uint64_t>();
      }
      const auto times = partials.front().at("workload").at("times_ps").get<std::vector<uint64_t>>();
      if (times.size() != bytes.size() || bytes.size() != merged.times_us.size())
        bad_partial("the workload bytes do not cover every sample");
      uint64_t last = 0, last_ps = 0;
      for (std::size_t t = 0; t < bytes.size(); ++t) {
        merged.rows[t].back() = static_cast<double>(bytes[t] - last) * gbps_per_byte(times[t] - last_ps);
        last = bytes[t];
        last_ps = times[t];
      }
      merged.columns.push_back("all workload flows");
      merged.column_keys.push_back(UINT64_MAX);
    }
    if (sampler::csv_written(name, merged)) out.emplace_back(name, std::move(merged));
  }
  return out;
}

std::string to_partial_bytes(const json& partial) {
  const std::vector<std::uint8_t> cbor = json::to_cbor(partial);
  return std::string(cbor.begin(), cbor.end());
}

json from_partial_bytes(const std::string& bytes) { return json::from_cbor(bytes); }

void write_merged_outputs(const std::string& dir, const json& summary,
                          const std::vector<std::pair<std::string, series>>& csvs) {
  write_summary_json(dir, [&](summary_sink& out) { emit_document(summary, out); });
  for (const auto& [name, s] : csvs) s.write_csv(dir + "/" + name + ".csv", "time_us");
}

}  // namespace sluice
