// Counters with hierarchical names, units and descriptions, mirroring the module tree
// ("sw0.port3.prio3.drops").
//
// The metadata is declared once per model class: a static table of stat_desc (leaf name, unit,
// description, reader). An instance registers the table once, at elaboration, with the module
// that owns it and the object its readers read; per-class statistics register once for all
// classes. Names are composed from the module tree only when listed (`sluice stats`, the
// summary's `counters`), so a fabric of thousands of ports stores no string per counter.
// Models keep plain integer members on the hot path. Like the models, registrations live for
// the process (one simulation per process): there is no removal.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sc_core {
class sc_object;
}

namespace sluice {

// A gauge is a level that rises and falls (a queue's depth, a peak, a mean, a last value); a
// counter totals events, bytes or time and never falls, which the always-on invariants check for
// every counter registered (platforms/invariants.*). Every stat_counter is a counter.
enum class stat_kind : uint8_t { gauge, counter };

struct stat_desc {
  const char* leaf;
  const char* unit;
  const char* description;
  // Reads the value from the registered object; cls is the class of a per-class statistic.
  double (*read)(const void* model, int cls);
  stat_kind kind = stat_kind::gauge;
};

// The object a reader receives, typed (for the readers of stat_desc tables).
template <class M>
const M& stat_model(const void* model) {
  return *static_cast<const M*>(model);
}

class stat_registry {
 public:
  // One listed statistic, its name composed.
  struct row {
    std::string name;
    const stat_desc* desc;
    const void* model;
    int cls;
    double value() const { return desc->read(model, cls); }
  };
  static stat_registry& instance();
  // Registers `descs` for `model`, named <owner>[.<scope>][.<label><k>].<leaf>. classes = 0:
  // one statistic each; classes = n: one per class k < n. owner may be null (scope then names
  // the whole prefix, e.g. "sluice.event_queue").
  void add(const sc_core::sc_object* owner, const char* scope, const stat_desc* descs, std::size_t count,
           const void* model, int classes = 0, const char* class_label = "prio");
  // Every statistic (or only those whose value is not 0), sorted by name. A name registered
  // twice is a model error (logic_error); it is caught when every statistic is listed.
  std::vector<row> rows(bool nonzero_only = false) const;
  // The same statistics visited in name order, f(std::string_view name, double value), without a
  // string per statistic: the names are composed into one buffer. A 10 000-host fabric's summary
  // lists 400 000 counters, and their rows took 60 MB at the end of the run (docs/scale.md).
  template <class F>
  void for_each_sorted(bool nonzero_only, F&& f) const {
    const listing l = list(nonzero_only);
    for (uint32_t i : l.order) f(l.name(i), value_of(l.refs[i]));
  }
  std::size_t size() const;  // statistics (per-class ones counted per class)
  // A statistic declared a counter, unnamed (names are composed only for a message).
  struct counter_ref {
    const stat_desc* desc;
    const void* model;
    int cls;
    uint32_t registration;
    double value() const { return desc->read(model, cls); }
  };
  // Calls f(counter_ref) for every counter, in registration order: visited, not listed, because
  // a list of every counter of a 10 000-host fabric took 250 MB (docs/scale.md).
  // The table's counters come from its mask, found once at registration: a check (every
  // millisecond) skips the gauges and the tables of gauges without testing each one per class.
  template <class F>
  void for_each_counter(F&& f) const {
    for (std::size_t r = 0; r < entries_.size(); ++r) {
      const entry& e = entries_[r];
      if (e.counters == 0 && e.count <= mask_bits) continue;
      for (int k = 0; k < std::max<int>(e.classes, 1); ++k) {
        const int cls = e.classes > 0 ? k : -1;
        for (uint32_t m = e.counters; m != 0; m &= m - 1)
          f(counter_ref{&e.descs[__builtin_ctz(m)], e.model, cls, static_cast<uint32_t>(r)});
        for (uint32_t i = mask_bits; i < e.count; ++i)  // a table longer than the mask (none yet)
          if (e.descs[i].kind == stat_kind::counter)
            f(counter_ref{&e.descs[i], e.model, cls, static_cast<uint32_t>(r)});
      }
    }
  }
  // "<owner>[.<scope>]": where a counter is, as invariant messages name it (its class apart).
  std::string owner_of(const counter_ref& c) const;
  // Registrations so far, and forgetting those made after such a count: for objects made only to
  // be looked at and destroyed at once (the census of the schemes' parameters), never for models.
  std::size_t registrations() const { return entries_.size(); }
  void forget_since(std::size_t registrations) { entries_.resize(std::min(registrations, entries_.size())); }

 private:
  struct entry {
    const sc_core::sc_object* owner;
    const char* scope;
    const char* class_label;
    const stat_desc* descs;
    const void* model;
    uint16_t count;
    int16_t classes;
    uint32_t counters;  // bit i: descs[i] is a counter (the first mask_bits of the table)
  };
  static constexpr uint32_t mask_bits = 32;
  std::vector<entry> entries_;
  // One listed statistic: its registration, class (-1: none) and descriptor, in 8 bytes.
  struct listed {
    uint32_t registration;
    int16_t cls;
    uint16_t desc;
  };
  struct listing {
    std::string names;             // every name, one after the other
    std::vector<uint32_t> starts;  // name i is names[starts[i], starts[i + 1])
    std::vector<listed> refs;
    std::vector<uint32_t> order;  // by name
    std::string_view name(uint32_t i) const {
      return std::string_view(names).substr(starts[i], starts[i + 1] - starts[i]);
    }
  };
  // Sorted by name; a name registered twice throws logic_error.
  listing list(bool nonzero_only) const;
  double value_of(const listed& r) const {
    const entry& e = entries_[r.registration];
    return e.descs[r.desc].read(e.model, r.cls);
  }
};

// A counter in one member declaration: its value, with its leaf, unit and description, registered
// under its owner (and scope) when constructed. The descriptor is kept once per declaration (a
// lambda's type is unique to the place it is written), not per instance; the hot path increments
// a plain integer.
//   stat_counter samples{&port, scope, [] { return stat_desc{"samples", "frames", "data frames sampled"}; }};
class stat_counter {
 public:
  template <class Declare>
  stat_counter(const sc_core::sc_object* owner, const char* scope, Declare declare) {
    stat_registry::instance().add(owner, scope, &interned(declare), 1, &value_);
  }
  stat_counter(const stat_counter&) = delete;  // registered by address
  stat_counter& operator=(const stat_counter&) = delete;
  stat_counter& operator++() {
    ++value_;
    return *this;
  }
  stat_counter& operator+=(uint64_t n) {
    value_ += n;
    return *this;
  }
  uint64_t value() const { return value_; }

 private:
  template <class Declare>
  static const stat_desc& interned(Declare declare) {
    static const stat_desc desc = [&] {
      stat_desc d = declare();
      d.read = [](const void* m, int) { return static_cast<double>(*static_cast<const uint64_t*>(m)); };
      d.kind = stat_kind::counter;
      return d;
    }();
    return desc;
  }
  uint64_t value_ = 0;
};

// Shorthand for models: registers a whole static table.
template <std::size_t N>
void add_stats(const sc_core::sc_object& owner, const stat_desc (&descs)[N], const void* model, int classes = 0,
               const char* scope = nullptr) {
  stat_registry::instance().add(&owner, scope, descs, N, model, classes);
}

}  // namespace sluice
