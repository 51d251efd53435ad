#pragma once
// A number the planner prints, with what it was computed from: the formula, each input with its
// unit, and where the formula comes from. `--explain` and the JSON report show all of it, so no
// figure in a plan is a bare number.
#include <string>
#include <utility>
#include <vector>

namespace trainready {

struct QuantityInput {
  std::string name;
  double value = 0;
  std::string unit;
};

struct Quantity {
  double value = 0;
  std::string unit;     // "B", "B/s", "s", "FLOP", "USD", "" (a ratio or count)
  std::string formula;  // in the notation of its source: "(2 + 2 + K)·Ψ/N_d"
  std::vector<QuantityInput> inputs;
  std::string source;  // citation, or "planner assumption"

  Quantity& in(std::string input_name, double input_value, std::string input_unit = "") {
    inputs.push_back({std::move(input_name), input_value, std::move(input_unit)});
    return *this;
  }
};

inline Quantity quantity(double value, std::string unit, std::string formula,
                         std::string source = "") {
  Quantity q;
  q.value = value;
  q.unit = std::move(unit);
  q.formula = std::move(formula);
  q.source = std::move(source);
  return q;
}

}  // namespace trainready
