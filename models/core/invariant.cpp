#include "models/core/invariant.h"

#include <systemc>

#include "models/core/event_queue.h"
#include "models/core/units.h"

namespace sluice {

void invariant_failed(const std::string& where, int cls, const std::string& what) {
  std::string msg = where;
  if (cls >= 0) msg += " prio " + std::to_string(cls);
  msg += " at " + format_time(from_ps(now_ps())) + ": " + what;
  SC_REPORT_ERROR("sluice/invariant", msg.c_str());
  throw std::logic_error(msg);  // only if the report's action does not throw
}

}  // namespace sluice
