// The verb table is data (table.cpp) and its handlers a list of their own (handlers.cpp): every
// verb has a handler and every handler a verb, so neither list can gain an entry the other lacks.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "verbs/handlers.hpp"
#include "verbs/verb.hpp"

namespace adbwire::verbs {
namespace {

TEST(VerbTable, EveryVerbHasAHandlerAndEveryHandlerAVerb) {
  std::set<std::string> table;
  for (const Verb& verb : all()) {
    table.emplace(verb.name);
    EXPECT_NE(handler_of(verb.name), nullptr) << verb.name << " has no handler";
  }
  std::set<std::string> handled;
  for (const std::string_view name : handled_verbs()) {
    handled.emplace(name);
    EXPECT_NE(find(name), nullptr) << "a handler for " << name << ", which the table lacks";
  }
  EXPECT_EQ(table, handled);
  EXPECT_EQ(handler_of("no_such_verb"), nullptr);
}

}  // namespace
}  // namespace adbwire::verbs
