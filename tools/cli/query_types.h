#pragma once
// The answer of each query type of `impetus query` (../shared/spec/query-format.md), one file
// each (query_<type>.cpp). Each takes the query object and its JSON path ("queries[3]"), checks
// every key (throwing QueryError naming the path of the problem) and returns the result fields
// (without "id").
#include <string>

#include "tools/cli/query_input.h"

namespace impetus::cli {

OrderedJson answer_distance(const Json& query, const std::string& path,
                            const std::string& base_dir);
OrderedJson answer_closest_approach(const Json& query, const std::string& path,
                                    const std::string& base_dir);
OrderedJson answer_mcd(const Json& query, const std::string& path, const std::string& base_dir);
OrderedJson answer_plane_toi(const Json& query, const std::string& path,
                             const std::string& base_dir);
OrderedJson answer_phong_distance(const Json& query, const std::string& path,
                                  const std::string& base_dir);

}  // namespace impetus::cli
