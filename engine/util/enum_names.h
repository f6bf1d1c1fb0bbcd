// A table of an enum's names, in the enum's order, read both ways: the shape every contract
// between parts takes (call roles, backends). Header only and std only, so the recorder can
// use it too.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>
#include <utility>

namespace streamlab {

template <typename Enum, size_t N>
using EnumNames = std::array<std::pair<Enum, std::string_view>, N>;

// True when entry i names the enum's value i, and no name is empty or given twice.
template <typename Enum, size_t N>
constexpr bool InEnumOrder(const EnumNames<Enum, N>& names) {
  for (size_t i = 0; i < N; ++i) {
    if (static_cast<size_t>(names[i].first) != i || names[i].second.empty()) return false;
    for (size_t j = 0; j < i; ++j)
      if (names[j].second == names[i].second) return false;
  }
  return true;
}

template <typename Enum, size_t N>
constexpr std::string_view NameOf(const EnumNames<Enum, N>& names, Enum value) {
  return names[static_cast<size_t>(value)].second;
}

template <typename Enum, size_t N>
constexpr std::optional<Enum> ValueNamed(const EnumNames<Enum, N>& names, std::string_view name) {
  for (const auto& [value, value_name] : names)
    if (value_name == name) return value;
  return std::nullopt;
}

}  // namespace streamlab
