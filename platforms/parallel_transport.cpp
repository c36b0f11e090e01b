#include "platforms/parallel_transport.h"

#include <systemc>

#include "models/core/units.h"

namespace sluice {
namespace {

// The failure as one line: a multi-line message keeps its first line.
std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

}  // namespace

int run_rank(parallel_transport& transport, const std::function<int()>& body) {
  std::string failure;
  try {
    return body();
  } catch (const config_error& e) {
    failure = std::string("error: ") + e.what();
  } catch (const sc_core::sc_report& e) {
    failure = std::string("error: ") + e.get_msg_type() + ": " + e.get_msg();
  } catch (const std::exception& e) {
    failure = std::string("error: ") + e.what();
  } catch (...) {
    failure = "error: an exception that is not a std::exception";
  }
  transport.abort_run(first_line(failure));
  return 1;  // not reached: abort_run ends the process
}

}  // namespace sluice
