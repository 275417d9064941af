# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat's JSON Schema (schema/rtlat.schema.json, draft 2020-12) as the
readers use it: a result file or the suite's registry.json checked
against it, the first problem as one line naming where it is."""
import functools
import json
from importlib import resources

from .validate import InputError

SCHEMA_FILE = "rtlat.schema.json"


@functools.lru_cache(maxsize=None)
def schema():
    """The schema as installed beside this module."""
    return json.loads(resources.files(__package__).joinpath(SCHEMA_FILE)
                      .read_text(encoding="utf-8"))


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
    cls = jsonschema.Draft202012Validator
    return cls(s, format_checker=cls.FORMAT_CHECKER)


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
    errors = sorted(_validator(part).iter_errors(data),
                    key=lambda e: (len(e.absolute_path), str(e.message)))
    return [f"{_where(e)}: {e.message}" for e in errors
            if not (lenient and e.validator == "required")]


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
