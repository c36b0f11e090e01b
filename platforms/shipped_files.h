// Files the CLI reads at run time, shipped with Sluice: the HTML report's scripts and template
// (share/sluice/report/) and the flow-size CDFs (share/sluice/data/). The build copies them beside
// the executable as an install lays them out, so a build or an install does not need the source
// tree; docs/observability.md#the-html-report.
#pragma once
#include <string>

namespace sluice {

// `relative` under <dir of the executable>/../share/sluice (build/platforms/sluice ->
// build/share/sluice, <prefix>/bin/sluice -> <prefix>/share/sluice) when it is there, else
// `source_path`, the file in the source tree the build was made from (the Python module and the
// test programs, whose executables live elsewhere).
std::string shipped_file(const std::string& relative, const std::string& source_path);

}  // namespace sluice
