// `sluice run ... --report FILE`: one self-contained HTML page of a run, made by the Python
// report (bindings/python/sluice/run_report.py: the plots of tools/plot_run.py and a jinja2
// template) from the run's outputs. The CLI is C++; the page's plots are matplotlib's, so it runs
// the venv's python on the run folder. docs/observability.md#the-html-report.
#pragma once
#include <string>

namespace sluice {

// The interpreter the report runs under: $SLUICE_PYTHON, else the one this build was configured
// with (the venv's).
std::string report_python();

// Writes `html_path` from the run folder `run_dir` (summary.json and the CSV series, as `--out`
// writes them). Throws config_error, one line naming --report: no python, a package missing for
// it (matplotlib, jinja2, ...), or the report's own failure.
void write_html_report(const std::string& run_dir, const std::string& html_path);

}  // namespace sluice
