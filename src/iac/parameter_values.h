#pragma once
// Values for an ARM template's parameters: parameters files (each value with its file and line),
// `-p` arguments as `az deployment group create --parameters` takes them, and Key Vault
// references (never read, never printed). Each supplied value is checked against the template's
// declaration as ARM checks it; a value ARM would refuse, or one left to fill (a placeholder),
// becomes a ParameterProblem, and the template's expressions see it as unknown.
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/located_json.h"
#include "facts/deployment_facts.h"
#include "iac/arm_expression.h"

namespace trainready {

struct ArmParameterValue {
  nlohmann::json value;    // as written; for -p name=value, the text after '='
  bool cli_text = false;   // -p name=value: converted by the declared type, as az does
  bool key_vault = false;  // a Key Vault reference: the value is not known here
  Provenance where;        // the value (file:line), or "-p name"
};

// Later values win. Key: the lower-case parameter name.
struct ArmParameterValues {
  std::map<std::string, ArmParameterValue> values;
  // Whether a supplied value the template does not declare is reported (off when several
  // templates share one set of values).
  bool report_undeclared = true;
};

// The object member `key`, matched without case as ARM matches names; nullptr when absent.
const nlohmann::json* arm_find_ci(const nlohmann::json& obj, const std::string& key);

// True for a deployment parameters file ({"$schema": ".../deploymentParameters.json#", ...}).
bool looks_like_arm_parameters(const nlohmann::json& doc);

// Adds the values of a parameters file. Throws InputError (file:line) when an entry is neither
// {"value": ...} nor {"reference": ...}.
void read_arm_parameters(const LocatedJson& doc, const std::string& file, ArmParameterValues* out);

// One -p argument, read as az reads an item of --parameters: `@FILE` or a path to a parameters
// file (with or without the "parameters" wrapper), a JSON object of parameters, or name=value
// (name=@FILE takes the file's text as the value). Throws InputError for a file that cannot be
// read or parsed and for an argument that is none of these.
void add_cli_parameter(const std::string& arg, ArmParameterValues* out);

// The supplied values as one template's expressions see them, and what is wrong with them.
struct CheckedParameters {
  std::map<std::string, ArmValue> given;  // key: lower-case name
  std::vector<ParameterProblem> problems;
  std::vector<std::string> notes;  // Key Vault references, worded as lint notes
};

// Checks every supplied value against its declaration in `doc` (file `file`): the declared
// type (a -p text converted first), allowedValues, minValue/maxValue, minLength/maxLength, and
// whether it is declared at all; and looks for placeholders. A refused or placeholder value is
// unknown in `given`.
CheckedParameters check_arm_parameters(const LocatedJson& doc, const std::string& file,
                                       const ArmParameterValues& params);

}  // namespace trainready
