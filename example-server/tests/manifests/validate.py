"""Validate a JSON document against a JSON Schema (draft 7 or 2020-12, as the
schema says), formats checked. Usage: validate.py SCHEMA DOCUMENT. Prints each
violation and exits 1 if there is any; the schema may be a wheel member given
as WHEEL!PATH (the registry's server.json schema comes in one from PyPI)."""

import json
import sys
import zipfile

import jsonschema


def load(spec):
    if "!" in spec:
        wheel, member = spec.split("!", 1)
        return json.loads(zipfile.ZipFile(wheel).read(member))
    with open(spec, encoding="utf-8") as f:
        return json.load(f)


def main():
    schema, document = load(sys.argv[1]), load(sys.argv[2])
    validator = jsonschema.validators.validator_for(schema)
    validator.check_schema(schema)
    errors = list(validator(schema, format_checker=validator.FORMAT_CHECKER).iter_errors(document))
    for error in errors:
        print(f"{'/'.join(map(str, error.absolute_path)) or '(top)'}: {error.message}")
    sys.exit(1 if errors else 0)


main()
