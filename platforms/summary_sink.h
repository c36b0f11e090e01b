// Where a run's summary goes, member by member in key order (the order nlohmann::json keeps an
// object's keys in, so every sink sees summary.json's order): a document (simulation::summary),
// the summary.json file (write_outputs), or a results store (results_store.*). None of them
// holds a big fabric's tens of megabytes of document unless it is one.
#pragma once
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

namespace sluice {

class summary_sink {
 public:
  virtual ~summary_sink() = default;
  virtual void member(const char* key, nlohmann::json value) = 0;
  virtual void open(const char* key, bool array) = 0;  // a member given element by element
  virtual void element(nlohmann::json value) = 0;
  virtual void element(const std::string& key, nlohmann::json value) = 0;
  virtual void close() = 0;
};

// The document `emit` gives a sink (simulation::summary).
nlohmann::json summary_document(const std::function<void(summary_sink&)>& emit);
// Gives a summary document to a sink member by member, its arrays and objects element by
// element (a merged summary, written as the single run's is).
void emit_document(const nlohmann::json& doc, summary_sink& out);
// Writes summary.json into `dir` (created if missing) as `emit` gives it: streamed, through a
// temporary file renamed at the end, so that no empty or partial summary.json is left behind.
void write_summary_json(const std::string& dir, const std::function<void(summary_sink&)>& emit);

}  // namespace sluice
