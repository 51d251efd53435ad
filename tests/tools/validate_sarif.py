"""Validates a SARIF log against the OASIS SARIF 2.1.0 JSON schema (tests/data/sarif)."""
import json
import sys

import jsonschema

schema_path, log_path = sys.argv[1], sys.argv[2]
with open(schema_path, encoding="utf-8") as f:
    schema = json.load(f)
with open(log_path, encoding="utf-8") as f:
    log = json.load(f)
validator = jsonschema.Draft4Validator(schema)
errors = sorted(validator.iter_errors(log), key=lambda e: list(e.path))
for e in errors[:20]:
    print("/".join(str(p) for p in e.path) + ": " + e.message)
sys.exit(1 if errors else 0)
