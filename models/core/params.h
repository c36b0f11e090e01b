// Typed, documented model parameters with hierarchical names ("sw0.port3.pfc.xoff").
//
// A model declares each parameter as a member; the declaration carries the unit, default, valid
// range and a one-line description, so `sluice params` and docs come from the same place.
// Overrides (scenario `params:` and `--set`, wildcards allowed) are applied after elaboration
// and before the simulation starts; models read values in start_of_simulation or later. A
// parameter declared `live` may also be written during the run (param_registry::set_live): its
// owner hears the write through its on-change hook, at the simulated time of the write.
#pragma once
#include <algorithm>
#include <cstddef>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "models/core/units.h"

namespace sc_core {
class sc_object;
}

namespace sluice {

// Whether a parameter may change during a run. `fixed`: read once the fabric is built (a
// frame format, a buffer's size, a policy's choice); a run-time write is refused. `live`: a
// run-time write reaches the owning model through its on-change hook and takes effect at the
// simulated time of the write (a threshold, a rate, a gain, a timer).
enum class param_change : bool { fixed, live };

// What a model class declares once for a parameter: its leaf name ("pfc.xoff"), description,
// default, valid range and whether it may change during a run. Instances point at it, so a
// fabric of thousands of ports keeps no copy of the text per port.
// The text of a parameter's declaration: its leaf name and description. Every spec begins with
// it, so an instance keeps one pointer to its spec for both (a fabric has a million instances).
struct param_text {
  const char* leaf;
  const char* description;
};

template <typename T>
struct param_spec : param_text {
  T default_value, min, max;
  param_change change = param_change::fixed;
};

struct choice_spec : param_text {
  std::string default_value;
  std::vector<std::string> choices;
};

class param_base;
class param_listener;
class param_family;

// What a parameter tells and asks its model: the listener of its run-time writes and its
// inertness check (param_base::on_change, inert_when). Interned: a port's dozens of parameters
// share a few (listener, check, model) triples, so a parameter keeps one pointer to its triple,
// not the three (a 10 240-host fabric has 1.5 million parameters; docs/scale.md).
struct param_hooks {
  using inert_check = std::string (*)(const void* model, const param_base& self);
  param_listener* listener = nullptr;
  inert_check check = nullptr;
  const void* model = nullptr;
  bool operator==(const param_hooks& o) const { return listener == o.listener && check == o.check && model == o.model; }
  // The one triple equal to h, for the life of the process. Parameters are declared model by
  // model, so a new triple is looked for among the last few made; a repeat further back is
  // made again (a few bytes, never a wrong hook).
  static const param_hooks* intern(const param_hooks& h);
  static const param_hooks none;
  static std::size_t made();  // triples interned so far (MemoryPerObject tests)
};

// The owner of live parameters: told after a run-time write changed one of them, at the
// models' current time, so that it recomputes what it derived from the value (and only then).
class param_listener {
 public:
  virtual void param_changed(const param_base& changed) = 0;

 protected:
  ~param_listener() = default;
};

class param_base {
 public:
  // Named <owner>[.<class_label><cls>].<leaf> from the module tree; owner null: leaf is the
  // whole name. cls < 0: not a per-class parameter.
  param_base(const sc_core::sc_object* owner, const param_text& text, int cls,
             param_change change = param_change::fixed);
  virtual ~param_base();
  param_base(const param_base&) = delete;
  param_base& operator=(const param_base&) = delete;

  std::string name() const;
  const char* description() const { return text_->description; }
  virtual std::string unit() const = 0;
  virtual std::string value_string() const = 0;
  virtual std::string default_string() const = 0;
  virtual std::string range_string() const = 0;
  // Parses and range-checks; throws config_error naming the parameter and the text.
  virtual void set_from_string(const std::string& text) = 0;
  // Parses and range-checks without setting (throws as set_from_string).
  virtual void check_string(const std::string& text) const = 0;
  // A new default (a hardware profile's): parsed and range-checked like set_from_string; the
  // value follows unless a scenario or the command line has set it.
  virtual void set_default_from_string(const std::string& text);
  // True once a scenario or the command line has set this parameter.
  bool overridden() const { return overridden_; }
  // Declared live: it may change during the run.
  bool live() const { return live_; }
  // The model told when a run-time write changes this parameter (one per parameter; set at
  // elaboration by the owner). Only a live parameter takes one.
  void on_change(param_listener* listener);
  // A run-time write: refuses a fixed parameter, then sets the value and tells the listener.
  // Throws config_error (one line, naming the parameter) and changes nothing on bad input.
  void write_live(const std::string& text);

  const char* leaf() const { return text_->leaf; }  // "pfc.xoff", without owner and class
  int cls() const { return cls_; }                  // -1: not a per-class parameter

  // Inertness: the model that owns a parameter declares when it has no effect in the final
  // configuration (another parameter's choice, the link layer, a replaced block). `check` gets
  // `model` and the parameter (its leaf and class) and returns why it is inert, or "" when it
  // has an effect. Asked once the overrides are final (platforms/inert_settings.*), never per
  // frame. One check per model usually serves all its parameters.
  using inert_check = param_hooks::inert_check;
  void inert_when(inert_check check, const void* model) {
    hooks_ = param_hooks::intern({hooks_->listener, check, model});
  }
  std::string inert_reason() const { return hooks_->check ? hooks_->check(hooks_->model, *this) : std::string(); }

 protected:
  bool overridden_ = false;
  const param_text& text() const { return *text_; }  // the derived class's spec begins with it

 private:
  friend class param_registry;
  friend class param_family;
  [[noreturn]] void refuse_fixed() const;
  bool live_;
  int16_t cls_;
  uint32_t slot_ = 0;  // position in the registry
  const sc_core::sc_object* owner_;
  const param_text* text_;
  const param_hooks* hooks_ = &param_hooks::none;  // interned
};

// How a value type is parsed, printed and named.
template <typename T>
struct param_traits;
template <>
struct param_traits<data_rate> {
  static std::string unit() { return "bit/s"; }
  static data_rate parse(const std::string& s, const std::string& k) { return parse_rate(s, k); }
  static std::string format(data_rate v) { return format_rate(v); }
};
template <>
struct param_traits<byte_count> {
  static std::string unit() { return "bytes"; }
  static byte_count parse(const std::string& s, const std::string& k) { return parse_bytes(s, k); }
  static std::string format(byte_count v) { return format_bytes(v); }
};
template <>
struct param_traits<sc_core::sc_time> {
  static std::string unit() { return "time"; }
  static sc_core::sc_time parse(const std::string& s, const std::string& k) { return parse_time(s, k); }
  static std::string format(const sc_core::sc_time& v) { return format_time(v); }
};
template <>
struct param_traits<double> {
  static std::string unit() { return "-"; }
  static double parse(const std::string& s, const std::string& k) { return parse_number(s, k); }
  static std::string format(double v) { return format_number(v); }
};
template <>
struct param_traits<uint64_t> {
  static std::string unit() { return "count"; }
  static uint64_t parse(const std::string& s, const std::string& k) { return parse_count(s, k); }
  static std::string format(uint64_t v) { return std::to_string(v); }
};
template <>
struct param_traits<bool> {
  static std::string unit() { return "bool"; }
  static bool parse(const std::string& s, const std::string& k) { return parse_bool(s, k); }
  static std::string format(bool v) { return v ? "true" : "false"; }
};

template <typename T>
class param : public param_base {
 public:
  using traits = param_traits<T>;
  using spec_type = param_spec<T>;
  param(const sc_core::sc_object* owner, const param_spec<T>& spec, int cls = -1)
      : param(owner, spec, spec.default_value, cls) {}
  // One member declaration: the spec is written where the member is declared, and kept once per
  // declaration, not per instance (a lambda's type is unique to the place it is written, so its
  // static is too):
  //   param<double> gd{owner, [] { return param_spec<double>{"qcn.gd", "description", 0.5, 0.0, 1.0}; }};
  template <class Declare, typename = std::enable_if_t<std::is_invocable_r_v<param_spec<T>, Declare>>>
  param(const sc_core::sc_object* owner, Declare declare, int cls = -1) : param(owner, interned(declare), cls) {}
  // With an instance default (a link's rate from the topology).
  param(const sc_core::sc_object* owner, const param_spec<T>& spec, T default_value, int cls = -1)
      : param_base(owner, spec, cls, spec.change), value_(default_value), default_(default_value) {
    check(default_value, traits::format(default_value));
  }
  const T& operator()() const { return value_; }
  const T& value() const { return value_; }
  void set(const T& v) {
    check(v, traits::format(v));
    value_ = v;
    overridden_ = true;
  }
  // For defaults derived from other parameters (PFC headroom from the link): replaces the
  // default, and the value unless the user has set it.
  void set_default(const T& v) {
    check(v, traits::format(v));
    default_ = v;
    if (!overridden_) value_ = v;
  }

  // Throws config_error if v is outside this parameter's range (for values set by events).
  void validate(const T& v) const { check(v, traits::format(v)); }

  std::string unit() const override { return traits::unit(); }
  std::string value_string() const override { return traits::format(value_); }
  std::string default_string() const override { return traits::format(default_); }
  std::string range_string() const override {
    return "[" + traits::format(spec().min) + ", " + traits::format(spec().max) + "]";
  }
  void set_from_string(const std::string& text) override {
    T v = traits::parse(text, name());
    check(v, text);
    value_ = v;
    overridden_ = true;
  }
  void check_string(const std::string& text) const override { check(traits::parse(text, name()), text); }
  void set_default_from_string(const std::string& text) override {
    T v = traits::parse(text, name());
    check(v, text);
    set_default(v);
  }

 private:
  void check(const T& v, const std::string& text) const {
    if (v < spec().min || spec().max < v)
      throw config_error(name() + ": '" + text + "' is outside the valid range " + range_string());
  }
  template <class Declare>
  static const param_spec<T>& interned(Declare declare) {
    static const param_spec<T> spec = declare();
    return spec;
  }
  const param_spec<T>& spec() const { return static_cast<const param_spec<T>&>(text()); }
  T value_, default_;
};

template <>
inline std::string param<bool>::range_string() const {
  return "{false, true}";
}

// A parameter whose value is one of a fixed set of names ("static", "dynamic").
class choice_param : public param_base {
 public:
  using spec_type = choice_spec;
  choice_param(const sc_core::sc_object* owner, const choice_spec& spec, int cls = -1);
  // One member declaration, as param<T>'s: the spec kept once per declaration.
  template <class Declare, typename = std::enable_if_t<std::is_invocable_r_v<choice_spec, Declare>>>
  choice_param(const sc_core::sc_object* owner, Declare declare, int cls = -1)
      : choice_param(owner, interned(declare), cls) {}
  const std::string& operator()() const { return spec().choices[index_]; }
  std::size_t index() const { return index_; }  // position in the spec's choices (no string compare)
  std::string unit() const override { return "choice"; }
  std::string value_string() const override { return (*this)(); }
  std::string default_string() const override { return spec().choices[default_index_]; }
  std::string range_string() const override;
  void set_from_string(const std::string& text) override;
  void check_string(const std::string& text) const override;
  // An instance default (an InfiniBand port's VL arbiter): replaces the value unless set.
  void set_default(const std::string& choice);
  void set_default_from_string(const std::string& text) override { set_default(text); }

 private:
  template <class Declare>
  static const choice_spec& interned(Declare declare) {
    static const choice_spec spec = declare();
    return spec;
  }
  const choice_spec& spec() const { return static_cast<const choice_spec&>(text()); }
  // Positions in the spec's choices (a choice's text is kept once, in its spec).
  uint32_t index_ = 0, default_index_ = 0;
};

// A choice a build may leave out (an RTL policy in a build without Verilator), declared at
// namespace scope in a file every build compiles: asking for it where it is missing says why,
// after the usual "is not one of" error.
struct absent_choice {
  absent_choice(const char* choice, const char* why);
  // The reason `choice` is missing from this build, or null.
  static const char* why(const std::string& choice);
};
// The reason of the RTL policies (docs/rtl.md).
inline constexpr const char* without_verilator =
    "an RTL block, and this build has none: configured with SLUICE_WITH_VERILATOR=OFF or without verilator "
    "(docs/rtl.md)";

// A parameter whose value is free text (a file path, a list): `check`, if given, validates a value
// and throws config_error naming the parameter (the name is passed in) and the text.
struct text_spec : param_text {
  const char* default_value;
  void (*check)(const std::string& name, const std::string& text) = nullptr;
};

class text_param : public param_base {
 public:
  text_param(const sc_core::sc_object* owner, const text_spec& spec)
      : param_base(owner, spec, -1), value_(spec.default_value) {}
  const std::string& operator()() const { return value_; }
  std::string unit() const override { return "text"; }
  std::string value_string() const override { return value_; }
  std::string default_string() const override { return spec().default_value; }
  std::string range_string() const override { return "-"; }
  void set_from_string(const std::string& text) override {
    check_string(text);
    value_ = text;
    overridden_ = text != spec().default_value;
  }
  void check_string(const std::string& text) const override {
    if (spec().check) spec().check(name(), text);
  }

 private:
  const text_spec& spec() const { return static_cast<const text_spec&>(param_base::text()); }
  std::string value_;
};

// All parameters of the simulation being built. One simulation per process (SystemC elaborates
// once), so the registry is process-wide.
class param_registry {
 public:
  static param_registry& instance();
  void add(param_base* p);
  void remove(param_base* p);
  param_base* find(const std::string& name) const;
  std::size_t size() const { return params_.size(); }  // declarations so far (a family is one)
  std::vector<param_base*> all() const;                // sorted by name; a name declared twice is a model error
  // Applies `value` to every parameter whose name matches the glob `pattern` (* and ?).
  // Returns how many matched; throws config_error when a value is invalid, or when none match
  // and require_match.
  std::size_t set(const std::string& pattern, const std::string& value, bool require_match = true);
  // A run-time write (a Python callback's live.set; firmware through a register map): every
  // parameter matching `pattern` must be live and take `value`, or nothing changes and
  // config_error names the first that refuses. Then each is set and its listener told, at the
  // models' current time. Returns how many matched.
  std::size_t set_live(const std::string& pattern, const std::string& value);
  // set() for each (pattern, value) in order, composing the parameters' names once for all of
  // them (a scenario may hold hundreds of thousands of patterns). Returns the positions of the
  // patterns that matched nothing (none when require_match: the first such one throws).
  std::vector<std::size_t> set_each(const std::vector<std::pair<std::string, std::string>>& overrides,
                                    bool require_match = true);
  // The parameters whose names match the glob `pattern`, in declaration order.
  std::vector<param_base*> matching(const std::string& pattern) const;
  // How many declarations there are (a family of per-class parameters is one), and the
  // parameters declared after such a count (none removed since).
  std::size_t count() const { return params_.size(); }
  std::vector<param_base*> declared_since(std::size_t count) const;

 private:
  friend class param_family;
  // One entry per declaration: a parameter, or a family of per-class ones (its address with bit
  // 0 set), which stands for all its classes, made or not, in their order. 8 bytes either way.
  using entry = std::uintptr_t;
  // Calls visit(entry, cls) for each parameter in declaration order (cls: the class within a
  // family's entry, -1 for a parameter's), from entry `first` on, until visit returns false.
  template <class Visit>
  void visit_from(std::size_t first, Visit visit) const;
  static std::string name_of(entry e, int cls);
  static param_base* made(entry e, int cls);  // makes a family's class parameter when first asked
  std::size_t set_matching(const std::vector<std::string>& names, const std::string& pattern, const std::string& value,
                           bool require_match);
  void remove_at(uint32_t slot);
  std::vector<std::string> names() const;  // in declaration order
  std::vector<entry> params_;              // in declaration order; names are composed on demand
};

// The parameters of one model's classes made from one declaration (a switch port's
// prio<k>.weight), each made only when something names it: an override's pattern, a listing, a
// lookup, a model asking for the parameter itself. Until then a class reads the declaration's
// default, the only value it can have unnamed. A 10 000-host fabric has a million per-class
// parameters, nearly all at their defaults, and each made one costs 50 bytes (docs/scale.md).
// The registry keeps one entry for the family and lists every class in its place, made or not.
class param_family {
 public:
  param_family() = default;
  param_family(const param_family&) = delete;
  param_family& operator=(const param_family&) = delete;
  int classes() const { return classes_; }
  std::string name(int cls) const;  // the class's parameter's name, made or not
  bool made(int cls) const { return made_ && made_[cls]; }
  // The parameters' hooks, as param_base's (each made one takes them).
  void on_change(param_listener* listener);
  void inert_when(param_base::inert_check check, const void* model);

 protected:
  virtual ~param_family();  // leaves the registry
  // Declares `classes` parameters in the registry (once; where the model declared them before).
  void declare(const sc_core::sc_object* owner, const param_text& text, bool live, int classes);
  param_base& member(int cls);  // made on first use
  const param_base* made_member(int cls) const { return made_ ? made_[cls].get() : nullptr; }

 private:
  friend class param_registry;
  // The class's parameter at its default.
  virtual std::unique_ptr<param_base> make(const sc_core::sc_object* owner, int cls) const = 0;
  const sc_core::sc_object* owner_ = nullptr;
  const param_text* text_ = nullptr;
  const param_hooks* hooks_ = &param_hooks::none;
  bool live_ = false;
  uint16_t classes_ = 0;
  uint32_t slot_ = 0;                                    // the family's entry in the registry
  std::unique_ptr<std::unique_ptr<param_base>[]> made_;  // null until a class is made
};

// A family of param<T> or choice_param (P), one per class.
template <class P>
class class_params : public param_family {
 public:
  using spec_type = typename P::spec_type;
  class_params() = default;
  void declare(const sc_core::sc_object* owner, const spec_type& spec, int classes) {
    spec_ = &spec;
    param_family::declare(owner, spec, is_live(spec), classes);
  }
  // The class's value: its parameter's if made, else the declaration's default.
  const auto& value(int cls) const {
    const param_base* m = made_member(cls);
    return m ? (*static_cast<const P*>(m))() : spec_->default_value;
  }
  // The class's parameter itself (made now if it was not).
  P& operator[](std::size_t cls) { return static_cast<P&>(member(static_cast<int>(cls))); }

 private:
  static bool is_live(const choice_spec&) { return false; }
  template <class S>
  static bool is_live(const S& spec) {
    return spec.change == param_change::live;
  }
  std::unique_ptr<param_base> make(const sc_core::sc_object* owner, int cls) const override {
    return std::make_unique<P>(owner, *spec_, cls);
  }
  const spec_type* spec_ = nullptr;
};

bool glob_match(const char* pattern, const char* text);

}  // namespace sluice
