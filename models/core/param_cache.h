// A configuration derived from parameters, for a hot path: built on first use (during the run,
// so after every override), then rebuilt only after a run-time write changed one of the live
// parameters it watches (param_listener), never per frame or per event.
#pragma once
#include <initializer_list>

#include "models/core/params.h"

namespace sluice {

template <typename Config>
class param_cache final : private param_listener {
 public:
  // Hooks the live parameters among `params` (a fixed one cannot change once the run starts).
  // One listener per parameter: the cache is its owner's hook.
  void watch(std::initializer_list<param_base*> params) {
    for (param_base* p : params)
      if (p->live()) p->on_change(this);
  }
  // The configuration, rebuilt by `build()` only when stale. A field that follows something other
  // than a parameter (the line rate) is the owner's to set at each use.
  template <typename Build>
  Config& get(Build&& build) {
    if (stale_) {
      value_ = build();
      stale_ = false;
    }
    return value_;
  }

 private:
  void param_changed(const param_base&) override { stale_ = true; }
  Config value_{};
  bool stale_ = true;
};

}  // namespace sluice
