// Fuzz target: the deployment readers (ARM / Bicep, Terraform plan, az, IMDS) and the deploy
// rules over whatever they produce.
#include "catalog/catalog.h"
#include "engine/engine.h"
#include "fuzz/fuzz_target.h"
#include "iac/deployment_inputs.h"

TRAINREADY_FUZZ_TARGET(deployment_json, text) {
  auto facts = trainready::read_deployment_text(std::string(text), "fuzz.json");
  (void)trainready::evaluate_deployment_rules(facts, trainready::Catalog::builtin());
}
