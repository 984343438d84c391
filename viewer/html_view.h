// `omprof view PROFILE... -o report.html`: one self-contained HTML file (no network; works from
// file://) with an interactive flame graph of the merged call tree coloured by work and wait,
// the explicit and parallel regions, threads, ranks and states tables, and the header. The page
// itself is viewer/html_page.cc; this side reduces the profiles to what it draws.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "viewer/model.h"
#include "viewer/name_trie.h"
#include "viewer/ranks.h"
#include "viewer/scaling.h"
#include "viewer/timeline.h"

namespace omprof::viewer {

class HtmlView {
 public:
  // Nodes below `min_fraction` of all time are folded into their parent's "<other>" child, so
  // that the page stays fast for any number of distinct stacks.
  explicit HtmlView(double min_fraction = 1e-4) : min_fraction_(min_fraction) {}
  void add(const format::Profile& p, const Model& m);  // each input profile in turn
  // A scaling page (`omprof view RUN1 RUN2 ...`, viewer/scaling.h): the analysis as the page's
  // "scaling" member, and the flame graph drawn from the call paths' losses (only the positive
  // ones: the extra thread time, coloured by its waiting part) instead of the profiles' samples.
  void set_scaling(nlohmann::json analysis, const std::vector<Loss>& path_losses);
  // The advice on the run (viewer/advice.h), as the page's "advice" member.
  void set_advice(nlohmann::json advice) { advice_ = std::move(advice); }
  // The page's data: header, tree (flat arrays), tables.
  nlohmann::json data() const;
  void write(std::ostream& out) const;
  size_t profiles() const { return profiles_; }

 private:
  // The merged call tree as parallel arrays in preorder, small nodes folded into "<other>".
  // `page_node`, when given, receives each trie node's node in the tree drawn.
  nlohmann::json tree_json(std::vector<uint32_t>* page_node = nullptr) const;
  void place_leads(size_t from_lane);
  struct Counts {
    uint64_t incl = 0, wait = 0, self = 0;
  };
  double min_fraction_;
  NameTrie trie_;
  std::vector<Counts> counts_{Counts{}};  // by trie node
  nlohmann::json headers_ = nlohmann::json::array();
  nlohmann::json threads_ = nlohmann::json::array();
  std::vector<std::string> counter_events_;   // every profile's counter events, in order seen
  std::vector<std::string> counter_columns_;  // and the region tables' columns of them
  nlohmann::json states_ = nlohmann::json::array();
  nlohmann::json parallel_regions_ = nlohmann::json::array();
  nlohmann::json regions_ = nlohmann::json::array();
  std::vector<RankNumbers> ranks_;
  nlohmann::json scaling_, advice_;
  Timeline timeline_;  // the profiles' intervals (format 1.17), for the page's timeline
  bool tree_from_losses_ = false;
  size_t profiles_ = 0;
};

// The page around the data (viewer/html_page.cc).
void write_html_page(std::ostream& out, const std::string& title, const nlohmann::json& data);

}  // namespace omprof::viewer
