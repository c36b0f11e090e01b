#include "models/core/params.h"

#include <algorithm>

namespace sluice {

param_base::param_base(std::string name, std::string description)
    : name_(std::move(name)), description_(std::move(description)) {
  param_registry::instance().add(this);
}

param_base::~param_base() { param_registry::instance().remove(this); }

choice_param::choice_param(const std::string& name, std::string default_value, std::string description,
                           std::vector<std::string> choices)
    : param_base(name, std::move(description)),
      value_(default_value),
      default_(default_value),
      choices_(std::move(choices)) {
  set_from_string(default_value);
}

std::string choice_param::range_string() const {
  std::string s = "{";
  for (std::size_t i = 0; i < choices_.size(); ++i) s += (i ? ", " : "") + choices_[i];
  return s + "}";
}

void choice_param::set_from_string(const std::string& text) {
  if (std::find(choices_.begin(), choices_.end(), text) == choices_.end())
    throw config_error(name() + ": '" + text + "' is not one of " + range_string());
  value_ = text;
  overridden_ = value_ != default_;
}

param_registry& param_registry::instance() {
  static param_registry registry;
  return registry;
}

void param_registry::add(param_base* p) {
  if (!params_.emplace(p->name(), p).second) throw config_error(p->name() + ": parameter declared twice");
}

void param_registry::remove(param_base* p) {
  auto it = params_.find(p->name());
  if (it != params_.end() && it->second == p) params_.erase(it);
}

param_base* param_registry::find(const std::string& name) const {
  auto it = params_.find(name);
  return it == params_.end() ? nullptr : it->second;
}

std::vector<param_base*> param_registry::all() const {
  std::vector<param_base*> out;
  out.reserve(params_.size());
  for (auto& [name, p] : params_) out.push_back(p);
  return out;
}

std::size_t param_registry::set(const std::string& pattern, const std::string& value) {
  std::size_t matched = 0;
  for (auto& [name, p] : params_) {
    if (!glob_match(pattern.c_str(), name.c_str())) continue;
    p->set_from_string(value);
    ++matched;
  }
  if (matched == 0) throw config_error(pattern + ": no parameter matches (see `sluice params`)");
  return matched;
}

bool glob_match(const char* pattern, const char* text) {
  // Iterative glob with single-star backtracking: linear in practice, no recursion blow-up.
  const char* star = nullptr;
  const char* resume = nullptr;
  while (*text) {
    if (*pattern == '*') {
      star = pattern++;
      resume = text;
    } else if (*pattern == '?' || *pattern == *text) {
      ++pattern;
      ++text;
    } else if (star) {
      pattern = star + 1;
      text = ++resume;
    } else
      return false;
  }
  while (*pattern == '*') ++pattern;
  return *pattern == '\0';
}

}  // namespace sluice
