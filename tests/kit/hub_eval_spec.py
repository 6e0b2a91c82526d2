"""The Hub's rules for a benchmark's `eval.yaml`, read from the copies the tests keep:
`harness/data/hub_eval_yaml_spec.json` (hub-docs `docs/hub/eval-results.md`, the sections
quoted verbatim at a pinned commit, with the rules each of their sentences sets) and
`harness/data/hub_eval_frameworks.json` (the Hub's list of evaluation frameworks, huggingface.js
`packages/tasks/src/eval.ts`). The Hub stand-in (hubstub.py) refuses a commit whose `eval.yaml`
breaks one of them, and the tests check the built file against them."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent.parent / "harness" / "data"
SPEC: dict[str, Any] = json.loads((DATA / "hub_eval_yaml_spec.json").read_text("utf-8"))
RULES: dict[str, Any] = SPEC["rules"]
FRAMEWORKS: tuple[str, ...] = tuple(
    json.loads((DATA / RULES["evaluation_framework"]["listed_in"]).read_text("utf-8"))[
        "evaluation_frameworks"
    ]
)
EVAL_YAML = RULES["file"]["path"]


def section_text() -> str:
    """The quoted sections of the page, as one text."""
    return "\n".join(SPEC["registering_a_benchmark"] + SPEC["adding_evaluation_results"])


def documented_examples() -> list[dict[str, Any]]:
    """The page's own eval.yaml examples (its ```yaml blocks of the specification section)."""
    import yaml

    text = "\n".join(SPEC["registering_a_benchmark"])
    return [yaml.safe_load(block) for block in re.findall(r"```yaml\n(.*?)```", text, re.S)]


def _is(kind: str, value: Any) -> bool:
    if kind == "text":
        return isinstance(value, str) and bool(value.strip())
    if kind == "list":
        return isinstance(value, list) and bool(value)
    if kind == "mapping":
        return isinstance(value, Mapping)
    raise ValueError(f"unknown rule type {kind!r}")


_KIND = {"text": "a non-empty string", "list": "a non-empty list", "mapping": "a mapping"}


def _field(where: str, rule: Mapping[str, Any], value: Any) -> list[str]:
    """What breaks `rule` in a present `value`."""
    name = rule["field"]
    if not _is(rule["type"], value):
        return [f"{where}{name} must be {_KIND[rule['type']]}"]
    errors = []
    for key in rule.get("required_keys", ()):
        if not _is("text", value.get(key)):
            errors.append(f"{where}{name}.{key} is required")
    for n, item in enumerate(value if rule["type"] == "list" else ()):
        for key in rule.get("item_required_keys", ()):
            if not isinstance(item, Mapping) or not _is("text", item.get(key)):
                errors.append(f"{where}{name}[{n}].{key} is required")
    return errors


def eval_yaml_errors(data: Any, frameworks: Iterable[str] = FRAMEWORKS) -> list[str]:
    """Every rule of the kept specification that `data` (a parsed eval.yaml) breaks, one
    message each; [] for a valid file."""
    if not isinstance(data, Mapping):
        return ["the file must be a YAML mapping"]
    errors = []
    for rule in RULES["required"]:
        if rule["field"] not in data:
            errors.append(f"{rule['field']} is required")
        else:
            errors += _field("", rule, data[rule["field"]])
    framework = data.get("evaluation_framework")
    listed = tuple(frameworks)
    if isinstance(framework, str) and framework.strip() and framework not in listed:
        errors.append(
            f"evaluation_framework {framework!r} is not one of the Hub's evaluation frameworks "
            "(huggingface.js packages/tasks/src/eval.ts)"
        )
    tasks = data.get("tasks")
    if not isinstance(tasks, list):
        return errors
    extra = RULES["framework_task_fields"].get(framework, {}).get("required", [])
    seen: set[str] = set()
    for n, task in enumerate(tasks):
        where = f"tasks[{n}]."
        if not isinstance(task, Mapping):
            errors.append(f"tasks[{n}] must be a mapping")
            continue
        for rule in RULES["task_required"]:
            value = task.get(rule["field"])
            if rule["field"] not in task:
                errors.append(f"{where}{rule['field']} is required")
                continue
            errors += _field(where, rule, value)
            if rule.get("unique") and isinstance(value, str):
                if value in seen:
                    errors.append(f"{where}{rule['field']} {value!r} is not unique")
                seen.add(value)
        for rule in RULES["task_optional"]:
            if rule["field"] in task:
                errors += _field(where, rule, task[rule["field"]])
        for rule in extra:
            if rule["field"] not in task:
                errors.append(
                    f"{where}{rule['field']} is required when evaluation_framework is {framework}"
                )
            else:
                errors += _field(where, rule, task[rule["field"]])
    return errors


PROPOSED_ENTRY = Path(__file__).resolve().parents[2] / "hub" / "evaluation-framework.ts"


def proposed_entry() -> dict[str, str]:
    """The huggingface.js entry this project proposes (hub/evaluation-framework.ts): its key and
    the `name`, `description` and `url` of its object, as eval.ts spells its entries."""
    text = "\n".join(
        line for line in PROPOSED_ENTRY.read_text("utf-8").splitlines() if not line.startswith("//")
    )
    found = re.fullmatch(
        r'\s*"(?P<key>[a-z0-9-]+)": \{\s*name: "(?P<name>[^"]+)",\s*'
        r'description:\s*"(?P<description>[^"]+)",\s*url: "(?P<url>[^"]+)",\s*\},\s*',
        text,
    )
    if found is None:
        raise ValueError(f"{PROPOSED_ENTRY}: not one EVALUATION_FRAMEWORKS entry")
    return found.groupdict()
