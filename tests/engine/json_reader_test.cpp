// describe_json, which quotes offending values in error messages: long strings are cut, and the
// cut never splits a UTF-8 character (query results embed these messages in JSON, whose dump
// throws on invalid UTF-8; found while writing the query fuzz target).
#include "engine/json_reader.h"

#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

namespace impetus {
namespace {

TEST(DescribeJson, CutsLongStringsAtACharacterBoundary) {
  // 30 × "é" (2 bytes each) and 20 × "€" (3 bytes): byte 37 falls inside a character.
  std::string two_byte, three_byte;
  for (int i = 0; i < 30; ++i) two_byte += "\xC3\xA9";
  for (int i = 0; i < 20; ++i) three_byte += "\xE2\x82\xAC";
  for (const std::string& text : {two_byte, three_byte}) {
    const std::string described = describe_json(nlohmann::json(text));
    EXPECT_LT(described.size(), text.size());
    EXPECT_EQ(described.substr(described.size() - 4), "...\"");
    // Valid UTF-8: nlohmann's strict dump accepts it.
    EXPECT_NO_THROW(nlohmann::json(described).dump()) << described;
  }
  EXPECT_EQ(describe_json(nlohmann::json("short")), "\"short\"");
}

}  // namespace
}  // namespace impetus
