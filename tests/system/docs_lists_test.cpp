// The docs' lists of names come from the registries: every choice parameter's row in a docs
// table ("| `<sw>.port<i>.prio<k>.cp` | choice | none | {none, asm, ...} |") lists exactly the
// names registered for it, and the scheme lists of docs/scenarios.md are the scheme registry's.
// A new scheme or policy folder that forgets its docs fails here.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include "models/cc/scheme.h"
#include "models/core/params.h"
#include "tests/support/harness.h"

using namespace sluice;

namespace {
std::set<std::string> split_names(std::string braced) {
  std::set<std::string> out;
  braced = std::regex_replace(braced, std::regex("[{}`]"), "");
  std::stringstream in(braced);
  for (std::string name; std::getline(in, name, ',');) {
    name = std::regex_replace(name, std::regex("^\\s+|\\s+$"), "");
    if (!name.empty()) out.insert(name);
  }
  return out;
}

std::set<std::string> backticked(const std::string& text) {
  std::set<std::string> out;
  const std::regex name("`([^`]+)`");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), name); it != std::sregex_iterator(); ++it)
    out.insert((*it)[1].str());
  return out;
}

std::string text_of(const std::filesystem::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Checks every "choice" row of every page under docs/ whose name matches parameters of the
// scenario being run; returns how many rows it checked.
int check_choice_rows() {
  int checked = 0;
  const std::regex row(R"(^\| `([^`]+)` \| choice \| [^|]* \| (\{[^}]*\}) \|)");
  for (const auto& entry : std::filesystem::recursive_directory_iterator(std::string(SLUICE_SOURCE_DIR) + "/docs")) {
    if (entry.path().extension() != ".md") continue;
    std::istringstream in(text_of(entry.path()));
    for (std::string line; std::getline(in, line);) {
      std::smatch m;
      if (!std::regex_search(line, m, row)) continue;
      const std::string glob = std::regex_replace(m[1].str(), std::regex("<[^>]*>"), "*");
      const std::vector<param_base*> params = param_registry::instance().matching(glob);
      if (params.empty()) continue;  // a parameter of the other fabric, or of a scheme not in use
      if (m[2].str().find("\u2026") != std::string::npos) continue;  // "{0, …, 15}": a range, not a list
      std::set<std::string> registered;
      for (const std::string& name : split_names(params.front()->range_string()))
        if (name.rfind("test-", 0) != 0) registered.insert(name);  // policies this test binary adds
      std::set<std::string> documented;
      for (const std::string& name : split_names(m[2].str()))  // RTL policies: in Verilator builds only
        if (registered.count(name) || name.size() < 4 || name.compare(name.size() - 4, 4, "-rtl") != 0)
          documented.insert(name);
      EXPECT_EQ(documented, registered) << entry.path().filename() << ": " << m[1];
      ++checked;
    }
  }
  return checked;
}
}  // namespace

TEST(DocsLists, EveryChoiceRowListsTheRegisteredNamesOnCee) {
  run_options o;
  o.cc = "dcqcn";
  simulation sim(load_scenario_file(test::scenario_path("dumbbell.yaml")), o);
  EXPECT_GE(check_choice_rows(), 6);  // cp, np, rp, scheduler, forwarding, mmu threshold, ...
}

TEST(DocsLists, EveryChoiceRowListsTheRegisteredNamesOnInfiniBand) {
  simulation sim(load_scenario_file(test::scenario_path("ib-incast.yaml")), run_options{});
  EXPECT_GE(check_choice_rows(), 6);
}

// docs/scenarios.md names the schemes twice: in the `cc` key's row and in the `--cc` option's,
// which also quotes the unknown-name error with the names in registration order.
TEST(DocsLists, TheSchemeListsAreTheRegistrys) {
  const std::string page = text_of(std::string(SLUICE_SOURCE_DIR) + "/docs/scenarios.md");
  std::set<std::string> registered;
  for (const auto& s : cc_scheme_registry::instance().all()) registered.insert(s->name);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(page, m, std::regex(R"(\| `cc` \| all \| no \| none \| [^(]*\(([^;]*);)")));
  EXPECT_EQ(backticked(m[1].str()), registered) << m[1];
  ASSERT_TRUE(std::regex_search(page, m, std::regex(R"(--cc: 'x' is not one of \{([^}]*)\})")));
  EXPECT_EQ(m[1].str(), cc_scheme_registry::instance().names());
  ASSERT_TRUE(std::regex_search(page, m, std::regex(R"(\| `--cc NAME` \| [^(]*\(([^;]*?)\), replacing)")));
  EXPECT_EQ(backticked(m[1].str()), registered) << m[1];
}
