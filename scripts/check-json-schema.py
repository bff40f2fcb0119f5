#!/usr/bin/env python3
"""Validates JSON documents against their JSON Schemas with the `jsonschema` package, as an
independent check of what constrained decoding wrote.

Usage: check-json-schema.py RECORDS.jsonl

Each line is {"name": ..., "schema": {...}, "output": "<the JSON text generated>"}. Every
output must parse as JSON without duplicate object keys and validate against its schema, with
the format checkers on (a schema using date, time, date-time, uuid, email, uri, ipv4 or
hostname needs its checker: the packages scripts/setup-python-tools.sh installs enable the ones
jsonschema leaves off without them). The validator follows the schema's `$schema` (draft 4, 7 or 2020-12; 2020-12 when absent).
Exits 1 when a document fails, 2 when jsonschema or a format checker is missing, so that a
machine without them fails the test instead of passing it.
"""
import json
import sys

FORMATS = {"date", "time", "date-time", "uuid", "email", "uri", "ipv4", "hostname"}


def formats_in(schema) -> set:
    """The `format` values a schema uses anywhere."""
    found = set()
    if isinstance(schema, dict):
        if isinstance(schema.get("format"), str):
            found.add(schema["format"])
        for v in schema.values():
            found |= formats_in(v)
    elif isinstance(schema, list):
        for v in schema:
            found |= formats_in(v)
    return found


def main() -> int:
    try:
        import jsonschema
        from jsonschema.validators import validator_for
    except ImportError as e:
        print(f"check-json-schema: jsonschema is not installed ({e}); run scripts/setup-python-tools.sh", file=sys.stderr)
        return 2
    records = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8") if line.strip()]
    if not records:
        print("check-json-schema: no records", file=sys.stderr)
        return 2
    failures = 0
    for r in records:
        schema = r["schema"]
        cls = validator_for(schema, default=jsonschema.Draft202012Validator)
        missing = (formats_in(schema) & FORMATS) - set(cls.FORMAT_CHECKER.checkers)
        if missing:
            print(f"check-json-schema: jsonschema cannot check the formats {sorted(missing)}; run scripts/setup-python-tools.sh",
                  file=sys.stderr)
            return 2
        cls.check_schema(schema)

        def no_duplicates(pairs):
            keys = [k for k, _ in pairs]
            if len(keys) != len(set(keys)):
                raise ValueError(f"duplicate keys {keys}")
            return dict(pairs)

        try:
            document = json.loads(r["output"], object_pairs_hook=no_duplicates)
        except ValueError as e:
            print(f"FAIL {r['name']}: not JSON ({e}): {r['output']}")
            failures += 1
            continue
        errors = list(cls(schema, format_checker=cls.FORMAT_CHECKER).iter_errors(document))
        if errors:
            failures += 1
            for e in errors[:3]:
                print(f"FAIL {r['name']}: {'/'.join(map(str, e.absolute_path))}: {e.message}: {r['output']}")
    print(f"check-json-schema: {len(records) - failures} of {len(records)} documents valid")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
