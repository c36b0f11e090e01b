// _sluice: the native half of the `sluice` Python package. It runs ONE simulation in the
// current process (SystemC elaborates once per process); the package (sluice/simulation.py)
// forks a child for each run, so a Python session can run many.
//
// Loading, running and reporting are the command line's (platforms/: load_scenario_*,
// parse_run_request, simulation, summary, listing); this file only converts to and from Python.
// The GIL is released while SystemC runs and taken back only for a Python callback. Python
// never owns a SystemC object: the views handed to callbacks hold plain pointers, and the
// simulation is left for the process's exit (as the CLI does: teardown is O(n^2) in SystemC).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <functional>
#include <map>
#include <unordered_map>

#include "models/core/frame_kinds.h"
#include "models/core/params.h"
#include "platforms/listing.h"
#include "platforms/run_progress.h"
#include "platforms/run_request.h"
#include "platforms/simulation.h"
#include "platforms/timed_callbacks.h"

namespace py = pybind11;
using namespace sluice;

// SystemC's library defines main() and needs sc_main. The module enters the kernel through
// sc_elab_and_sim, which calls sc_main, which runs the body the module has set.
namespace {
// The tool owns its output, as the CLI does: no SystemC copyright banner in a user's script or
// notebook. Set when the module loads, before any run enters the kernel.
[[maybe_unused]] const bool banner_off = setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0) == 0;
std::function<void()> main_body;
std::exception_ptr main_error;
}  // namespace

__attribute__((visibility("default"))) int sc_main(int, char*[]) {
  try {
    main_body();
    return 0;
  } catch (...) {
    main_error = std::current_exception();
    return 1;
  }
}

namespace {

bool elaborated = false;

// Runs `body` inside the SystemC kernel with the GIL released; rethrows what it threw.
void in_kernel(std::function<void()> body) {
  if (elaborated)
    throw std::runtime_error(
        "_sluice: one simulation per process (SystemC elaborates once); sluice.Simulation runs each in a child "
        "process");
  elaborated = true;
  main_body = std::move(body);
  main_error = nullptr;
  {
    py::gil_scoped_release release;
    char name[] = "sluice";
    char* argv[] = {name, nullptr};
    sc_core::sc_elab_and_sim(1, argv);
  }
  if (main_error) std::rethrow_exception(main_error);
}

// What to simulate, as the Python keywords give it.
struct run_spec {
  std::optional<std::string> path, text;
  std::string base_dir = ".";
  run_request request;
};

run_spec spec_from(const py::dict& kw) {
  run_spec s;
  auto text = [&](const char* key) -> std::optional<std::string> {
    if (!kw.contains(key) || kw[key].is_none()) return std::nullopt;
    return py::str(kw[key]).cast<std::string>();
  };
  s.path = text("path");
  s.text = text("text");
  if (auto d = text("base_dir")) s.base_dir = *d;
  if (kw.contains("sets"))
    for (auto item : kw["sets"].cast<py::list>()) {
      auto pair = item.cast<py::tuple>();
      s.request.sets.emplace_back(py::str(pair[0]).cast<std::string>(), py::str(pair[1]).cast<std::string>());
    }
  s.request.until = text("until");
  s.request.sample_period = text("sample_period");
  s.request.seed = text("seed");
  s.request.cc = text("cc");
  s.request.profile = text("profile");
  s.request.allow_inert = kw.contains("allow_inert") && kw["allow_inert"].cast<bool>();
  s.request.pcap = text("pcap");
  s.request.trace_frames = text("trace_frames");
  s.request.vcd = text("vcd");
  s.request.trace_window = text("trace_window");
  if (kw.contains("trace"))
    for (auto item : kw["trace"].cast<py::list>()) s.request.trace.push_back(py::str(item).cast<std::string>());
  s.request.capture_kinds = text("capture_kinds");
  s.request.capture_window = text("capture_window");
  if (kw.contains("capture"))
    for (auto item : kw["capture"].cast<py::list>()) s.request.capture.push_back(py::str(item).cast<std::string>());
  s.request.store = text("store");
  s.request.store_series = kw.contains("store_series") && kw["store_series"].cast<bool>();
  s.request.window_partitions = text("window_partitions");
  s.request.partition_method = text("partition_method");
  s.request.window_threads = text("window_threads");
  s.request.store_tags = text("store_tags");
  return s;
}

// The simulation of `spec`, elaborated; left for the process's exit (see the top comment).
simulation& elaborate(const run_spec& spec) {
  if (!spec.path && !spec.text) throw config_error("scenario: give a file's path or a scenario's text");
  const run_options opts = parse_run_request(spec.request, "");
  const scenario s =
      spec.path ? load_scenario_file(*spec.path) : load_scenario_text(*spec.text, "scenario", spec.base_dir);
  return *new simulation(s, opts);
}

// ---- What callbacks see -------------------------------------------------------------------

struct link_view {
  sluice::link* model;
  std::string name() const { return model->name(); }
  std::string rate() const { return format_rate(model->current_rate()); }
  double rate_bps() const { return model->current_rate().bps; }
  void set_rate(const std::string& text) {
    const data_rate r = parse_rate(text, std::string(model->name()) + ".rate");
    model->rate.validate(r);
    model->set_rate(r);
  }
};

// The live fabric during a run: valid only inside a callback.
class live_view {
 public:
  explicit live_view(simulation& sim) : sim_(sim) {}
  double now_us() const { return static_cast<double>(now_ps()) * 1e-6; }
  double counter(const std::string& name) {
    if (by_name_.empty())
      for (std::size_t i = 0; i < rows().size(); ++i) by_name_.emplace(rows()[i].name, i);
    auto it = by_name_.find(name);
    if (it == by_name_.end()) throw config_error("counter: '" + name + "' is not a statistic (see sluice.stats)");
    return rows()[it->second].value();
  }
  // A glob is matched against the names once per run and remembered (compiled into the list of
  // its rows), so a callback that polls a glob each period reads values only: the registry's
  // names are built once, not per call.
  py::dict counters(const std::string& match) {
    auto it = matches_.find(match);
    if (it == matches_.end()) {
      std::vector<std::pair<py::str, std::size_t>> hits;
      for (std::size_t i = 0; i < rows().size(); ++i)
        if (glob_match(match.c_str(), rows()[i].name.c_str())) hits.emplace_back(py::str(rows()[i].name), i);
      if (hits.empty()) throw config_error("counters: '" + match + "' matches no statistic");
      std::sort(hits.begin(), hits.end(),
                [&](const auto& a, const auto& b) { return rows()[a.second].name < rows()[b.second].name; });
      it = matches_.emplace(match, std::move(hits)).first;
    }
    py::dict out;
    for (const auto& [name, i] : it->second) out[name] = rows()[i].value();
    return out;
  }
  // "a-b" (the link) or "a->b" / "b->a" (one of its directions: the rate is the link's).
  link_view link_named(const std::string& name) {
    if (name.find("->") == std::string::npos) return {&sim_.fabric_model().link_named(name)};
    for (link_entry& e : sim_.fabric_model().links)
      if (e.model->ab.label() == name || e.model->ba.label() == name) return {e.model.get()};
    throw config_error("link: '" + name + "' is not a link direction");
  }
  std::string param(const std::string& name) const {
    param_base* p = param_registry::instance().find(name);
    if (!p) throw config_error("param: '" + name + "' is not a parameter (see sluice.params)");
    return p->value_string();
  }
  // A run-time write to every live parameter matching `pattern`, at this callback's simulated
  // time; a fixed parameter, a bad value or no match raises ValueError and changes nothing.
  std::size_t set(const std::string& pattern, const py::object& value) {
    return param_registry::instance().set_live(pattern, py::str(value).cast<std::string>());
  }
  void stop() { event_queue::instance().request_stop(); }
  // A device's register (docs/cosimulation.md#register-maps), at this callback's simulated
  // time, as firmware sees it: by path ("switch_port[4].ECN_KMIN[3]", with ".FIELD" for one
  // field) or by address. A refused access raises ValueError with the bank's one-line reason.
  uint32_t reg_read(const std::string& device, const py::object& where, bool debug) {
    const register_ref r = resolve(device, where);
    uint32_t v = 0;
    if (r.bank->read(r.address, v, debug) != regs::reg_status::ok) throw config_error(r.bank->error());
    return r.field ? (v & r.field->mask()) >> r.field->lsb : v;
  }
  void reg_write(const std::string& device, const py::object& where, uint32_t value) {
    const register_ref r = resolve(device, where);
    uint32_t v = value;
    if (r.field) {  // read, modify the field, write
      if (r.bank->read(r.address, v, true) != regs::reg_status::ok) throw config_error(r.bank->error());
      v = (v & ~r.field->mask()) | ((value << r.field->lsb) & r.field->mask());
    }
    if (r.bank->write(r.address, v) != regs::reg_status::ok) throw config_error(r.bank->error());
  }
  // A message to a device's firmware mailbox (its on_mailbox handler), answered at this
  // callback's simulated time; the reply as bytes. No firmware, or none with a mailbox: ValueError.
  py::bytes mailbox(const std::string& device, const py::object& message) {
    const std::string text =
        py::isinstance<py::bytes>(message) ? message.cast<std::string>() : py::str(message).cast<std::string>();
    for (auto& s : sim_.fabric_model().switches)
      if (device == s->name()) return py::bytes(s->firmware_mailbox(text));
    for (auto& n : sim_.fabric_model().nics)
      if (device == n->name()) return py::bytes(n->firmware_mailbox(text));
    throw config_error("mailbox: '" + device + "' is no switch or NIC of this fabric");
  }

 private:
  struct register_ref {
    regs::register_bank* bank;
    uint32_t address;
    const regs::field_desc* field = nullptr;
  };
  register_ref resolve(const std::string& device, const py::object& where) {
    regs::register_target* target = nullptr;
    for (auto& s : sim_.fabric_model().switches)
      if (device == s->name()) target = &s->registers;
    for (auto& n : sim_.fabric_model().nics)
      if (device == n->name()) target = &n->registers;
    if (!target) throw config_error("registers: '" + device + "' is no switch or NIC of this fabric");
    register_ref r{&target->bank(), 0};
    if (py::isinstance<py::int_>(where)) {
      r.address = where.cast<uint32_t>();
    } else {
      r.address = r.bank->address_of(where.cast<std::string>(), &r.field);
    }
    return r;
  }
  const std::vector<stat_registry::row>& rows() {
    if (rows_.empty()) rows_ = stat_registry::instance().rows();
    return rows_;
  }
  simulation& sim_;
  std::vector<stat_registry::row> rows_;  // every statistic, named once per run
  std::unordered_map<std::string, std::size_t> by_name_;
  std::unordered_map<std::string, std::vector<std::pair<py::str, std::size_t>>> matches_;
};

py::dict series_dict(const series& s) {
  py::array_t<double> values({s.rows.size(), s.columns.size()});
  auto v = values.mutable_unchecked<2>();
  for (std::size_t r = 0; r < s.rows.size(); ++r)
    for (std::size_t c = 0; c < s.columns.size(); ++c) v(r, c) = s.rows[r][c];
  py::dict d;
  d["columns"] = s.columns;
  d["time_us"] = py::array_t<double>(s.times_us.size(), s.times_us.data());
  d["values"] = values;
  return d;
}

struct callback_spec {
  std::string at, every;  // one of them
  py::function fn;
};

// Runs a simulation with Python callbacks; returns the summary (JSON text), the time series,
// each callback's non-None return values as (time_us, value), whether Ctrl-C stopped it and
// the run's id in the results store (with `store`).
py::dict run(const py::dict& kw, const std::vector<callback_spec>& callbacks, bool progress) {
  const run_spec spec = spec_from(kw);
  std::vector<py::list> returns(callbacks.size());
  py::object view_object = py::none();
  std::exception_ptr callback_error;
  std::string summary_text;
  bool interrupted = false;
  std::optional<int64_t> store_id;
  simulation* simp = nullptr;
  in_kernel([&] {
    simulation& sim = elaborate(spec);
    simp = &sim;
    const uint64_t end = to_ps(sim.until());
    auto* timed = new timed_callbacks("python_callbacks", end);  // owned by the kernel's hierarchy
    auto* view = new live_view(sim);
    for (std::size_t i = 0; i < callbacks.size(); ++i) {
      const callback_spec& c = callbacks[i];
      const bool periodic = !c.every.empty();
      const uint64_t t = to_ps(parse_time(periodic ? c.every : c.at, periodic ? "every" : "at"));
      if (periodic && t == 0) throw config_error("every: '" + c.every + "' must be positive");
      // Captures by reference: copying a Python object needs the GIL, which is released here.
      timed->add(t, periodic ? t : 0, [&, i, fn = &c.fn, view] {
        if (callback_error) return;
        py::gil_scoped_acquire gil;
        try {
          if (view_object.is_none()) view_object = py::cast(view, py::return_value_policy::reference);
          py::object value = (*fn)(view_object);
          if (!value.is_none()) returns[i].append(py::make_tuple(static_cast<double>(now_ps()) * 1e-6, value));
        } catch (...) {
          callback_error = std::current_exception();  // raised once the kernel has stopped
          event_queue::instance().request_stop();
        }
      });
    }
    run_progress meter(*timed, end, progress);
    sim.run();
    if (!meter.interrupted() && !callback_error) timed->finish();
    meter.done();
    interrupted = meter.interrupted();
    summary_text = sim.summary().dump();
    if (!callback_error) store_id = sim.store_results(interrupted);  // a failed run is not kept
  });
  if (callback_error) std::rethrow_exception(callback_error);
  const sampler& samples = simp->samples();
  py::dict out, all_series;
  out["summary"] = summary_text;
  all_series["queue_depth"] = series_dict(samples.queue_depth);
  all_series["link_throughput"] = series_dict(samples.link_throughput);
  all_series["flow_throughput"] = series_dict(samples.flow_throughput);
  all_series["paused_fraction"] = series_dict(samples.paused_fraction);
  all_series["flow_rate"] = series_dict(samples.flow_rate);
  all_series["buffer_occupancy"] = series_dict(samples.buffer_occupancy);
  all_series["credit_blocked_fraction"] = series_dict(samples.credit_blocked_fraction);
  out["series"] = all_series;
  if (const frame_trace* trace = simp->trace()) {  // columns of frame_trace.csv, as lists
    py::list id, time_ns, event, at, kind, flow, cls, bytes, queue;
    for (const frame_trace::row& r : trace->data()) {
      id.append(r.id);
      time_ns.append(static_cast<double>(r.time_ps) / 1000.0);
      event.append(frame_trace::event_of(*r.point));
      at.append(frame_trace::at_of(*r.point));
      const frame_kind_info* k = frame_kind_registry::instance().find(static_cast<frame_kind>(r.kind));
      kind.append(k ? k->name : std::to_string(r.kind));
      flow.append(r.flow);
      cls.append(r.cls >= 0 ? py::object(py::int_(r.cls)) : py::object(py::none()));
      bytes.append(r.bytes);
      queue.append(r.queue != ~0ull ? py::object(py::int_(r.queue)) : py::object(py::none()));
    }
    py::dict t;
    t["frame_id"] = id;
    t["time_ns"] = time_ns;
    t["event"] = event;
    t["at"] = at;
    t["kind"] = kind;
    t["flow"] = flow;
    t["class"] = cls;
    t["bytes"] = bytes;
    t["queue_bytes"] = queue;
    out["frame_trace"] = t;
  }
  out["returns"] = returns;
  out["interrupted"] = interrupted;
  out["store_id"] = store_id ? py::object(py::int_(*store_id)) : py::object(py::none());
  return out;
}

// The parameters of the elaborated scenario: (name, unit, default, value, range, description).
std::vector<param_row> params(const py::dict& kw, const std::string& match) {
  const run_spec spec = spec_from(kw);
  std::vector<param_row> rows;
  in_kernel([&] {
    elaborate(spec);
    rows = list_params(match, "match");
  });
  return rows;
}

// The statistics of the elaborated scenario: (name, unit, description).
std::vector<std::array<std::string, 3>> stats(const py::dict& kw, const std::string& match) {
  const run_spec spec = spec_from(kw);
  std::vector<std::array<std::string, 3>> rows;
  in_kernel([&] {
    elaborate(spec);
    for (const stat_registry::row& r : list_stats(match, "match"))
      rows.push_back({r.name, r.desc->unit, r.desc->description});
  });
  return rows;
}

// The built fabric: switches, NICs, ports (with their peers), links and flows, as plain rows.
py::dict fabric_rows(const py::dict& kw) {
  const run_spec spec = spec_from(kw);
  simulation* simp = nullptr;
  in_kernel([&] { simp = &elaborate(spec); });
  fabric& f = simp->fabric_model();
  py::list switches, nics, ports, links, flows;
  for (auto& sw : f.switches) {
    switches.append(py::dict(py::arg("name") = sw->name(), py::arg("ports") = sw->ports.size()));
    for (std::size_t i = 0; i < sw->ports.size(); ++i)
      ports.append(py::dict(py::arg("port") = sw->ports[i]->name(), py::arg("node") = sw->name(), py::arg("index") = i,
                            py::arg("peer") = f.peer_of(sw->name(), static_cast<int>(i))));
  }
  for (auto& n : f.nics) {
    nics.append(n->name());
    ports.append(py::dict(py::arg("port") = n->port.name(), py::arg("node") = n->name(), py::arg("index") = 0,
                          py::arg("peer") = f.peer_of(n->name(), 0)));
  }
  for (link_entry& e : f.links)
    links.append(py::dict(py::arg("name") = e.model->name(), py::arg("ab") = e.model->ab.label(),
                          py::arg("ba") = e.model->ba.label(), py::arg("rate") = format_rate(e.model->rate()),
                          py::arg("delay") = format_time(e.model->delay())));
  for (const flow& fl : f.flows)
    flows.append(py::dict(py::arg("id") = fl.id, py::arg("name") = fl.spec.name,
                          py::arg("src") = f.nic_at(fl.spec.src).name(), py::arg("dst") = f.nic_at(fl.spec.dst).name(),
                          py::arg("priority") = static_cast<int>(fl.spec.priority),
                          py::arg("size_bytes") = fl.spec.size ? py::object(py::int_(fl.spec.size)) : py::none()));
  py::dict out;
  out["switches"] = switches;
  out["nics"] = nics;
  out["ports"] = ports;
  out["links"] = links;
  out["flows"] = flows;
  return out;
}

}  // namespace

PYBIND11_MODULE(_sluice, m) {
  m.doc() = "Sluice's native module: one simulation per process (use the sluice package)";
  // The model's one-line message for bad input, as ValueError; kernel reports as RuntimeError.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const config_error& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const sc_core::sc_report& e) {
      PyErr_SetString(PyExc_RuntimeError, printable(std::string(e.get_msg_type()) + ": " + e.get_msg()).c_str());
    }
  });
  py::class_<link_view>(m, "Link", "A link of the running fabric (both directions share its rate)")
      .def_property_readonly("name", &link_view::name)
      .def_property_readonly("rate", &link_view::rate, "current rate, e.g. '40Gbps'")
      .def_property_readonly("rate_bps", &link_view::rate_bps)
      .def("set_rate", &link_view::set_rate, py::arg("rate"), "change both directions' rate from now on");
  py::class_<live_view>(m, "Live", "The fabric during a callback")
      .def_property_readonly("now_us", &live_view::now_us, "simulated time in microseconds")
      .def("counter", &live_view::counter, py::arg("name"), "current value of a registered statistic")
      .def("counters", &live_view::counters, py::arg("match") = "*", "statistics whose names match a glob")
      .def("link", &live_view::link_named, py::arg("name"), "a link, by name 'a-b' or direction 'a->b'")
      .def("param", &live_view::param, py::arg("name"), "a parameter's current value, as text")
      .def("set", &live_view::set, py::arg("pattern"), py::arg("value"),
           "write every live parameter matching a glob, from now on; returns how many matched")
      .def("stop", &live_view::stop, "end the run now (results so far are kept)")
      .def("reg_read", &live_view::reg_read, py::arg("device"), py::arg("register"), py::arg("debug") = false,
           "read a device's register now, by path ('switch_port[4].ECN_KMIN[3]', '.FIELD' for a field) or address")
      .def("reg_write", &live_view::reg_write, py::arg("device"), py::arg("register"), py::arg("value"),
           "write a device's register now, by path (a '.FIELD' suffix writes that field only) or address")
      .def("mailbox", &live_view::mailbox, py::arg("device"), py::arg("message"),
           "send a message (bytes or text) to a device's firmware mailbox now; returns its reply as bytes");
  py::class_<callback_spec>(m, "Callback")
      .def(py::init([](std::string at, std::string every, py::function fn) {
             return callback_spec{std::move(at), std::move(every), std::move(fn)};
           }),
           py::arg("at") = "", py::arg("every") = "", py::arg("fn"));
  m.def("run", &run, py::arg("spec"), py::arg("callbacks"), py::arg("progress") = true);
  m.def("params", &params, py::arg("spec"), py::arg("match") = "*");
  m.def("stats", &stats, py::arg("spec"), py::arg("match") = "*");
  m.def("fabric", &fabric_rows, py::arg("spec"));
}
