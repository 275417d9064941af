# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat's JSON Schema (schema/rtlat.schema.json, draft 2020-12) as the
readers use it: a result file or the suite's registry.json checked
against it, the first problem as one line naming where it is."""
import functools
import json
import re
from importlib import resources

from ..io import InputError

SCHEMA_FILE = "rtlat.schema.json"


@functools.lru_cache(maxsize=None)
def schema():
    """The schema as installed beside this module."""
    return json.loads(resources.files(__package__).joinpath(SCHEMA_FILE)
                      .read_text(encoding="utf-8"))


_PY_TYPES = {"integer": lambda v: isinstance(v, int) and not isinstance(v, bool)
              or isinstance(v, float) and v.is_integer(),
              "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
              "string": lambda v: isinstance(v, str),
              "null": lambda v: v is None}


def _scalar_check(s, formats):
    """A function telling whether a scalar follows s (type, minimum,
    pattern, format and nothing else), or None when s has more."""
    if set(s) - {"type", "minimum", "pattern", "format", "description"}:
        return None
    types = s.get("type", [])
    types = [types] if isinstance(types, str) else types
    if not types or any(t not in _PY_TYPES for t in types):
        return None
    tests = [_PY_TYPES[t] for t in types]
    low, fmt = s.get("minimum"), s.get("format")
    pat = re.compile(s["pattern"]) if "pattern" in s else None

    def ok(v):
        if not any(t(v) for t in tests):
            return False
        if low is not None and _PY_TYPES["number"](v) and v < low:
            return False
        if isinstance(v, str) and (pat and not pat.search(v) or
                                   fmt and not formats.conforms(v, fmt)):
            return False
        return True
    return ok


def _row_check(items, formats):
    """For an array's item schema that is a row of scalars (the time
    line's steps, the largest samples: thousands of them), a function
    telling whether a row follows it, exactly as the schema says; None
    for any other item schema."""
    if set(items) - {"type", "items", "minItems", "maxItems", "prefixItems"} or \
            items.get("type") != "array" or items.get("items", {}) != {}:
        return None
    cols = [_scalar_check(c, formats) for c in items.get("prefixItems", [])]
    if not cols or None in cols:
        return None
    lo, hi = items.get("minItems", 0), items.get("maxItems", float("inf"))

    def ok(row):
        return isinstance(row, list) and lo <= len(row) <= hi and \
            all(c(v) for c, v in zip(cols, row))
    return ok


def _fast_items(default):
    """jsonschema's "items", with rows of scalars checked by _row_check:
    a row that does not follow is handed to jsonschema itself, for its
    message. Validating a file's 2048 largest samples item by item took
    0.3 s, a third of a small report's time."""
    def items(validator, item_schema, instance, schema):
        check = None
        if isinstance(item_schema, dict) and "prefixItems" not in schema and \
                validator.is_type(instance, "array"):
            check = _row_check(item_schema, validator.format_checker)
        if check is None:
            yield from default(validator, item_schema, instance, schema)
            return
        for i, row in enumerate(instance):
            if not check(row):
                yield from validator.descend(row, item_schema, path=i)
    return items


@functools.lru_cache(maxsize=None)
def _validator(part):
    """A validator of one part: "result" (any test's --json, with its
    test's own definition) or "registry" (the suite's index)."""
    import jsonschema
    s = dict(schema())
    s.pop("oneOf")
    if part == "registry":
        s["$ref"] = "#/$defs/registry"
    else:
        s["allOf"] = schema()["oneOf"][0]["allOf"]
    base = jsonschema.Draft202012Validator
    cls = jsonschema.validators.extend(
        base, {"items": _fast_items(base.VALIDATORS["items"])})
    return cls(s, format_checker=base.FORMAT_CHECKER)


def _where(error):
    path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}"
                   for p in error.absolute_path).lstrip(".")
    return path or "the file"


def problems(data, lenient=False):
    """What in data does not follow the schema, as lines "WHERE: WHAT",
    first the shallowest. lenient: keys left out are not problems (the
    report shows what a file has and says what it lacks)."""
    part = "registry" if isinstance(data, dict) and \
        "registry_version" in data else "result"
    errors = []
    for e in _validator(part).iter_errors(data):
        # "is not valid under any of the given schemas" (null or an
        # object): the object's own problem, the deepest, where it is
        while e.context:
            e = max(e.context, key=lambda c: (len(c.absolute_path),
                                              c.validator != "type"))
        errors.append(e)
    errors.sort(key=lambda e: (len(e.absolute_path), str(e.message)))
    return [describe(e) for e in errors
            if not (lenient and e.validator == "required")]


def describe(error):
    """A jsonschema ValidationError as one line: where (the value's path,
    thread.0.receiver.latency or largest.series[0].rows[3]), what is
    wrong and the schema's rule. jsonschema's message starts with the
    value itself (a whole series, the whole document for a oneOf at the
    top): a long one is said by its kind and size."""
    message, value = error.message, repr(error.instance)
    if len(value) > 60 and message.startswith(value):
        message = _kind(error.instance) + message[len(value):]
    return f"{_where(error)}: {_short(message)} (rule: {error.validator})"


def _kind(v):
    for t, what in ((dict, "an object of {} keys"),
                    (list, "an array of {} items"),
                    (str, "a string of {} characters")):
        if isinstance(v, t):
            return what.format(len(v))
    return f"a {type(v).__name__}"


def _short(message, most=200):
    """What is left of a long message (a long pattern, a value inside
    it): its start and end."""
    return message if len(message) <= most else \
        message[:most // 2] + " ... " + message[-most // 2:]


def is_rtlat(data):
    """A file rtlat wrote (its own section), not rt-tests'."""
    return isinstance(data, dict) and isinstance(data.get("rtlat"), dict)


def check(data, path, lenient=False):
    """InputError naming path and the first thing that does not follow
    rtlat's JSON Schema. Without the jsonschema package: no check (the
    hand checks of validate.py still run)."""
    try:
        found = problems(data, lenient)
    except ImportError:
        return
    if found:
        more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
        raise InputError(f"{path}: unreadable: not as rtlat's JSON Schema "
                         f"has it: {found[0]}{more}")
