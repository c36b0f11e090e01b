// Counters with hierarchical names, units and descriptions, mirroring the module tree
// ("sw0.port3.prio3.drops"). Models keep plain integer members on the hot path and register
// a reader for each once, at elaboration; `sluice stats` and the summary's `counters` read them
// all through the registry, so a new model's counters are observable without touching the
// report code. Readers capture their model: like the models, entries live for the process (one
// simulation per process), and there is no removal.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace sluice {

class stat_registry {
 public:
  using reader = std::function<double()>;
  struct entry {
    std::string name, unit, description;
    reader read;
  };
  static stat_registry& instance();
  // Throws config_error if the name is taken.
  void add(const std::string& name, const std::string& unit, const std::string& description, reader read);
  std::vector<const entry*> all() const;  // sorted by name
  std::size_t size() const { return entries_.size(); }

 private:
  std::map<std::string, entry> entries_;
};

// Shorthand for models: registers `prefix.name`.
inline void add_stat(const std::string& prefix, const std::string& name, const std::string& unit,
                     const std::string& description, stat_registry::reader read) {
  stat_registry::instance().add(prefix + "." + name, unit, description, std::move(read));
}

}  // namespace sluice
