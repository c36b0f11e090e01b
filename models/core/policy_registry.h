// Policies chosen by name: a registry per replaceable slot (egress scheduler, MMU threshold,
// forwarding, congestion point, notification point, reaction point) maps a name to a factory
// and a one-line description. A policy registers itself from its own .cpp with one line:
//
//   const policy_registrar<scheduler_policies> reg{"round-robin", "one frame per class in turn", make_rr};
//
// The libraries holding policies are linked whole (see models/CMakeLists.txt), so a policy's
// translation unit, and with it its registrar, is never dropped by the static linker.
//
// The parameter that picks a policy is a choice_param whose choices are the registry's names in
// registration order (choice_for), so `sluice params` lists them and an unknown name is the
// choice_param error: "sw0.port3.scheduler: 'wfq' is not one of {strict-dwrr, round-robin}".
#pragma once
#include <algorithm>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "models/core/params.h"

namespace sluice {

template <class Interface, class... Args>
class policy_registry {
 public:
  using interface = Interface;
  // The process-wide registry of this slot (one per Interface and Args).
  static policy_registry& instance() {
    static policy_registry r;
    return r;
  }
  // May return nullptr: the slot stays empty ("none").
  using factory = std::function<std::unique_ptr<Interface>(Args...)>;
  struct entry {
    std::string name, description;
    factory make;
    // The owner's parameters the policy reads (their leaves, "prio<k>." left out), if it said;
    // the others have no effect while it is chosen (param_base::inert_when).
    std::optional<std::vector<std::string>> reads;
  };

  // A name registered twice is a model error.
  void add(std::string name, std::string description, factory make,
           std::optional<std::vector<std::string>> reads = std::nullopt) {
    if (find(name)) throw std::logic_error("policy '" + name + "' registered twice");
    entries_.push_back({std::move(name), std::move(description), std::move(make), std::move(reads)});
  }
  // Whether policy `name` reads its owner's parameter `leaf`. False only when `name` listed what
  // it reads without `leaf` while another policy of the slot lists it: a parameter no policy
  // claims is the owner's own, read whatever the choice.
  bool reads(const std::string& name, const std::string& leaf) const {
    auto lists = [&](const entry& e) {
      return e.reads && std::find(e.reads->begin(), e.reads->end(), leaf) != e.reads->end();
    };
    const entry* chosen = find(name);
    if (!chosen || !chosen->reads || lists(*chosen)) return true;
    return std::none_of(entries_.begin(), entries_.end(), lists);
  }
  const entry* find(const std::string& name) const {
    for (const entry& e : entries_)
      if (e.name == name) return &e;
    return nullptr;
  }
  std::vector<std::string> names() const {  // in registration order
    std::vector<std::string> out;
    for (const entry& e : entries_) out.push_back(e.name);
    return out;
  }
  const std::vector<entry>& entries() const { return entries_; }
  // `what` names the parameter in the error ("sw0.port3.scheduler").
  std::unique_ptr<Interface> make(const std::string& what, const std::string& name, Args... args) const {
    const entry* e = find(name);
    if (!e) throw config_error(what + ": '" + name + "' is not one of " + braced());
    return e->make(std::forward<Args>(args)...);
  }
  std::string braced() const {
    std::string s = "{";
    for (std::size_t i = 0; i < entries_.size(); ++i) s += (i ? ", " : "") + entries_[i].name;
    return s + "}";
  }

  // The choice_spec of a parameter picking from this registry: choices = names(), description
  // = `description` followed by each policy's own. Build it once, after static initialisation
  // (a function-local static in the model), so it holds every registered name and outlives
  // every parameter that points at it.
  std::unique_ptr<choice_spec> choice_for(const char* leaf, const std::string& description,
                                          const std::string& default_name) const {
    if (!find(default_name)) throw std::logic_error("policy default '" + default_name + "' is not registered");
    std::string text = description;
    for (const entry& e : entries_) text += "; " + e.name + ": " + e.description;
    texts_.push_back(std::make_unique<std::string>(std::move(text)));
    return std::make_unique<choice_spec>(choice_spec{leaf, texts_.back()->c_str(), default_name, names()});
  }

 private:
  std::vector<entry> entries_;
  mutable std::vector<std::unique_ptr<std::string>> texts_;  // descriptions the specs point at
};

// One line per policy, at namespace scope in the policy's .cpp: registers at static
// initialisation. Registry is a policy_registry<...> type (an alias such as scheduler_policies).
template <class Registry>
struct policy_registrar {
  template <class Factory>
  policy_registrar(const char* name, const char* description, Factory make) {
    Registry::instance().add(name, description, std::move(make));
  }
  // `reads`: the leaves of the owner's parameters the policy reads ({} : none of them).
  template <class Factory>
  policy_registrar(const char* name, const char* description, Factory make, std::initializer_list<const char*> reads) {
    Registry::instance().add(name, description, std::move(make), std::vector<std::string>(reads.begin(), reads.end()));
  }
};

}  // namespace sluice
