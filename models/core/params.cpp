#include "models/core/params.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <map>
#include <stdexcept>
#include <systemc>

namespace sluice {

param_base::param_base(const sc_core::sc_object* owner, const param_text& text, int cls, param_change change)
    : live_(change == param_change::live), cls_(static_cast<int16_t>(cls)), owner_(owner), text_(&text) {
  param_registry::instance().add(this);
}

param_base::~param_base() { param_registry::instance().remove(this); }

namespace {
// <owner>[.prio<cls>].<leaf>, a made parameter's name and a family's class's alike.
std::string compose_name(const sc_core::sc_object* owner, int cls, const char* leaf) {
  std::string n = owner ? std::string(owner->name()) + "." : std::string();
  if (cls >= 0) n += "prio" + std::to_string(cls) + ".";
  return n + leaf;
}
}  // namespace

std::string param_base::name() const { return compose_name(owner_, cls_, text_->leaf); }

const param_hooks param_hooks::none{};

namespace {
std::deque<param_hooks>& interned_hooks() {
  static std::deque<param_hooks> all;  // a deque: its elements never move
  return all;
}
}  // namespace

const param_hooks* param_hooks::intern(const param_hooks& h) {
  if (h == none) return &none;
  std::deque<param_hooks>& all = interned_hooks();
  constexpr std::size_t lookback = 8;
  for (std::size_t i = all.size(); i > 0 && i + lookback > all.size(); --i)
    if (all[i - 1] == h) return &all[i - 1];
  all.push_back(h);
  return &all.back();
}

std::size_t param_hooks::made() { return interned_hooks().size(); }

void param_base::on_change(param_listener* listener) {
  if (!live_) throw std::logic_error(name() + ": an on-change hook on a parameter that is not live");
  if (hooks_->listener && hooks_->listener != listener) throw std::logic_error(name() + ": a second on-change hook");
  hooks_ = param_hooks::intern({listener, hooks_->check, hooks_->model});
}

void param_base::refuse_fixed() const {
  throw config_error(name() + ": fixed after elaboration, it cannot change during a run (not a live parameter)");
}

void param_base::write_live(const std::string& text) {
  if (!live_) refuse_fixed();
  set_from_string(text);
  if (hooks_->listener) hooks_->listener->param_changed(*this);
}

void param_base::set_default_from_string(const std::string&) {
  throw config_error(name() + ": has no default to replace");
}

choice_param::choice_param(const sc_core::sc_object* owner, const choice_spec& spec, int cls)
    : param_base(owner, spec, cls) {
  set_from_string(spec.default_value);
  default_index_ = index_;
  overridden_ = false;
}

void choice_param::set_default(const std::string& choice) {
  const bool was_set = overridden_;
  const uint32_t kept = index_;
  set_from_string(choice);  // checks the name
  default_index_ = index_;
  if (was_set) index_ = kept;
  overridden_ = was_set;
}

std::string choice_param::range_string() const {
  std::string s = "{";
  const std::vector<std::string>& choices = spec().choices;
  for (std::size_t i = 0; i < choices.size(); ++i) s += (i ? ", " : "") + choices[i];
  return s + "}";
}

void choice_param::set_from_string(const std::string& text) {
  check_string(text);
  const std::vector<std::string>& choices = spec().choices;
  index_ = static_cast<uint32_t>(std::find(choices.begin(), choices.end(), text) - choices.begin());
  overridden_ = text != choices[default_index_];
}

void choice_param::check_string(const std::string& text) const {
  const std::vector<std::string>& choices = spec().choices;
  if (std::find(choices.begin(), choices.end(), text) != choices.end()) return;
  const char* why = absent_choice::why(text);
  throw config_error(name() + ": '" + text + "' is not one of " + range_string() +
                     (why ? " (" + text + ": " + why + ")" : ""));
}

namespace {
std::map<std::string, const char*>& absent_choices() {
  static std::map<std::string, const char*> m;
  return m;
}
}  // namespace

absent_choice::absent_choice(const char* choice, const char* why) { absent_choices()[choice] = why; }

const char* absent_choice::why(const std::string& choice) {
  const auto it = absent_choices().find(choice);
  return it == absent_choices().end() ? nullptr : it->second;
}

void param_family::declare(const sc_core::sc_object* owner, const param_text& text, bool live, int classes) {
  if (text_) throw std::logic_error(name(0) + ": a family of parameters declared twice");
  if (classes < 0 || classes > std::numeric_limits<uint16_t>::max())
    throw std::logic_error(std::string(text.leaf) + ": " + std::to_string(classes) + " classes in a family");
  owner_ = owner;
  text_ = &text;
  live_ = live;
  classes_ = static_cast<uint16_t>(classes);
  std::vector<param_registry::entry>& all = param_registry::instance().params_;
  slot_ = static_cast<uint32_t>(all.size());
  all.push_back(reinterpret_cast<param_registry::entry>(this) | 1);
}

param_family::~param_family() {
  made_.reset();  // the made parameters hold no entry of their own
  if (text_) param_registry::instance().remove_at(slot_);
}

std::string param_family::name(int cls) const { return compose_name(owner_, cls, text_ ? text_->leaf : "?"); }

void param_family::on_change(param_listener* listener) {
  if (!live_) throw std::logic_error(name(0) + ": an on-change hook on a parameter that is not live");
  hooks_ = param_hooks::intern({listener, hooks_->check, hooks_->model});
  for (int k = 0; k < classes_; ++k)
    if (made(k)) made_[k]->on_change(listener);
}

void param_family::inert_when(param_base::inert_check check, const void* model) {
  hooks_ = param_hooks::intern({hooks_->listener, check, model});
  for (int k = 0; k < classes_; ++k)
    if (made(k)) made_[k]->inert_when(check, model);
}

param_base& param_family::member(int cls) {
  if (made(cls)) return *made_[cls];
  if (!made_) made_ = std::make_unique<std::unique_ptr<param_base>[]>(classes_);
  std::vector<param_registry::entry>& all = param_registry::instance().params_;
  std::unique_ptr<param_base> p = make(owner_, cls);  // its own entry appended: the family's stands for it
  if (all.back() != reinterpret_cast<param_registry::entry>(p.get()))
    throw std::logic_error(name(cls) + ": made out of the registry's order");
  all.pop_back();
  p->slot_ = std::numeric_limits<uint32_t>::max();
  p->hooks_ = hooks_;
  made_[cls] = std::move(p);
  return *made_[cls];
}

param_registry& param_registry::instance() {
  static param_registry registry;
  return registry;
}

void param_registry::add(param_base* p) {
  p->slot_ = static_cast<uint32_t>(params_.size());
  params_.push_back(reinterpret_cast<entry>(p));
}

void param_registry::remove(param_base* p) {
  if (p->slot_ < params_.size() && params_[p->slot_] == reinterpret_cast<entry>(p)) remove_at(p->slot_);
}

void param_registry::remove_at(uint32_t slot) {
  const entry last = params_.back();
  params_[slot] = last;
  if (last & 1)
    reinterpret_cast<param_family*>(last & ~entry{1})->slot_ = slot;
  else
    reinterpret_cast<param_base*>(last)->slot_ = slot;
  params_.pop_back();
}

template <class Visit>
void param_registry::visit_from(std::size_t first, Visit visit) const {
  for (std::size_t i = first; i < params_.size(); ++i) {
    const entry e = params_[i];
    if (!(e & 1)) {
      if (!visit(e, -1)) return;
      continue;
    }
    const int classes = reinterpret_cast<const param_family*>(e & ~entry{1})->classes();
    for (int k = 0; k < classes; ++k)
      if (!visit(e, k)) return;
  }
}

std::string param_registry::name_of(entry e, int cls) {
  if (e & 1) return reinterpret_cast<const param_family*>(e & ~entry{1})->name(cls);
  return reinterpret_cast<const param_base*>(e)->name();
}

param_base* param_registry::made(entry e, int cls) {
  if (e & 1) return &reinterpret_cast<param_family*>(e & ~entry{1})->member(cls);
  return reinterpret_cast<param_base*>(e);
}

param_base* param_registry::find(const std::string& name) const {
  param_base* found = nullptr;
  visit_from(0, [&](entry e, int cls) {
    if (name_of(e, cls) == name) found = made(e, cls);
    return !found;
  });
  return found;
}

std::vector<param_base*> param_registry::all() const {
  std::vector<std::pair<std::string, param_base*>> named;
  named.reserve(params_.size());
  visit_from(0, [&](entry e, int cls) {
    named.emplace_back(name_of(e, cls), made(e, cls));
    return true;
  });
  std::sort(named.begin(), named.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<param_base*> out;
  out.reserve(named.size());
  for (std::size_t i = 0; i < named.size(); ++i) {
    if (i && named[i].first == named[i - 1].first)
      throw std::logic_error(named[i].first + ": parameter declared twice");
    out.push_back(named[i].second);
  }
  return out;
}

std::size_t param_registry::set_matching(const std::vector<std::string>& names, const std::string& pattern,
                                         const std::string& value, bool require_match) {
  std::size_t matched = 0, i = 0;
  visit_from(0, [&](entry e, int cls) {
    if (glob_match(pattern.c_str(), names[i++].c_str())) {
      made(e, cls)->set_from_string(value);
      ++matched;
    }
    return true;
  });
  if (matched == 0 && require_match) throw config_error(pattern + ": no parameter matches (see `sluice params`)");
  return matched;
}

std::size_t param_registry::set(const std::string& pattern, const std::string& value, bool require_match) {
  return set_matching(names(), pattern, value, require_match);
}

std::vector<std::size_t> param_registry::set_each(const std::vector<std::pair<std::string, std::string>>& overrides,
                                                  bool require_match) {
  std::vector<std::size_t> unmatched;
  if (overrides.empty()) return unmatched;
  const std::vector<std::string> all_names = names();
  for (std::size_t i = 0; i < overrides.size(); ++i)
    if (set_matching(all_names, overrides[i].first, overrides[i].second, require_match) == 0) unmatched.push_back(i);
  return unmatched;
}

std::vector<std::string> param_registry::names() const {
  std::vector<std::string> out;
  out.reserve(params_.size());
  visit_from(0, [&](entry e, int cls) {
    out.push_back(name_of(e, cls));
    return true;
  });
  return out;
}

std::size_t param_registry::set_live(const std::string& pattern, const std::string& value) {
  std::vector<param_base*> matched;
  visit_from(0, [&](entry e, int cls) {
    if (glob_match(pattern.c_str(), name_of(e, cls).c_str())) matched.push_back(made(e, cls));
    return true;
  });
  if (matched.empty()) throw config_error(pattern + ": no parameter matches (see `sluice params`)");
  // All or nothing: a refusal or a bad value leaves every match as it was.
  for (param_base* p : matched) {
    if (!p->live()) p->refuse_fixed();
    p->check_string(value);
  }
  for (param_base* p : matched) p->write_live(value);
  return matched.size();
}

std::vector<param_base*> param_registry::matching(const std::string& pattern) const {
  std::vector<param_base*> out;
  visit_from(0, [&](entry e, int cls) {
    if (glob_match(pattern.c_str(), name_of(e, cls).c_str())) out.push_back(made(e, cls));
    return true;
  });
  return out;
}

std::vector<param_base*> param_registry::declared_since(std::size_t count) const {
  std::vector<param_base*> out;
  visit_from(count, [&](entry e, int cls) {
    out.push_back(made(e, cls));
    return true;
  });
  return out;
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
