// Runs run_report.py RUN_DIR OUT.html (share/sluice/report/ beside the executable, else
// bindings/python/sluice/) and turns its failures into one-line errors.
#include "platforms/html_report.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "models/core/units.h"
#include "platforms/shipped_files.h"

extern char** environ;

namespace sluice {
namespace {

constexpr int missing_package_status = 3;  // run_report.py's exit status for a missing package

// The last non-empty line: a traceback's last line says what went wrong.
std::string last_line(const std::string& text) {
  std::size_t end = text.find_last_not_of("\r\n ");
  if (end == std::string::npos) return "";
  const std::size_t newline = text.rfind('\n', end);
  const std::size_t begin = newline == std::string::npos ? 0 : newline + 1;
  return text.substr(begin, end + 1 - begin);
}

}  // namespace

std::string report_python() {
  const char* chosen = std::getenv("SLUICE_PYTHON");
  return chosen && *chosen ? chosen : SLUICE_REPORT_PYTHON;
}

void write_html_report(const std::string& run_dir, const std::string& html_path) {
  const std::string python = report_python();
  const std::string script = shipped_file("report/run_report.py", SLUICE_REPORT_SCRIPT);
  if (access(python.c_str(), X_OK) != 0)
    throw config_error("--report: no Python at '" + python +
                       "' (set SLUICE_PYTHON to a python3 with matplotlib and jinja2, or run tools/setup.sh)");
  if (access(script.c_str(), R_OK) != 0)
    throw config_error("--report: the report script '" + script +
                       "' is missing (build/share/sluice/report/ or <prefix>/share/sluice/report/ beside the sluice "
                       "executable, else the source tree)");
  // The script's stderr comes back through a pipe, its stdout is not used.
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) throw config_error(std::string("--report: pipe: ") + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDERR_FILENO);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[1]);
  std::vector<std::string> args = {python, script, run_dir, html_path};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, python.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_fds[1]);
  std::string err;
  char buf[4096];
  for (ssize_t n; spawned == 0 && (n = read(pipe_fds[0], buf, sizeof buf)) != 0;)
    if (n > 0)
      err.append(buf, static_cast<std::size_t>(n));
    else if (errno != EINTR)
      break;
  close(pipe_fds[0]);
  if (spawned != 0) throw config_error("--report: cannot run '" + python + "': " + std::strerror(spawned));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return;
  const std::string why = last_line(err);
  if (WIFEXITED(status) && WEXITSTATUS(status) == missing_package_status) throw config_error("--report: " + why);
  const std::string how = WIFSIGNALED(status) ? "killed by signal " + std::to_string(WTERMSIG(status))
                                              : "exit status " + std::to_string(WEXITSTATUS(status));
  throw config_error("--report: " + python + " " + script + " failed: " + (why.empty() ? how : why));
}

}  // namespace sluice
