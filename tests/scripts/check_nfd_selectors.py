#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Judges the pod examples of a Markdown page against an NFD feature file.

    check_nfd_selectors.py PAGE.md FEATURE_FILE

Every fenced ```yaml block of PAGE.md that holds a Pod (or its spec) with a nodeSelector or a
required nodeAffinity is checked as the API server would take it, then matched against the
labels of FEATURE_FILE (what `peergate export nfd` wrote) as the scheduler matches a node's
labels. One line per example on stdout, "example N (line L): selects" or "example N (line L):
does not select: WHY"; exit 1 when an example is not something the API server accepts.

The rules are Kubernetes' own (kubernetes.io/docs/concepts/scheduling-eviction/
assign-pod-node/, apimachinery pkg/labels/selector.go): nodeSelector entries must all equal
the node's labels; nodeSelectorTerms are ORed and the matchExpressions of a term ANDed; In and
NotIn take a list of strings, Exists and DoesNotExist none, Gt and Lt exactly one, and compare
as integers (strconv.ParseInt, base 10): a label value that is not an integer never matches.
"""

import re
import sys

import yaml

NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
PREFIX = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
INTEGER = re.compile(r"^[+-]?[0-9]+$")  # Go's ParseInt: no blanks, no underscores
OPERATORS = {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"}


def yaml_blocks(page):
    """(first line number, text) of every ```yaml fenced block."""
    blocks, current, start = [], None, 0
    for number, line in enumerate(page.splitlines(), 1):
        stripped = line.strip()
        if current is None and stripped == "```yaml":
            current, start = [], number + 1
        elif current is not None and stripped == "```":
            blocks.append((start, "\n".join(current)))
            current = None
        elif current is not None:
            current.append(line)
    return blocks


def labels_of(text):
    labels = {}
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            key, _, value = line.partition("=")
            labels[key] = value if _ else "true"
    return labels


def check_key(key):
    if not isinstance(key, str):
        raise ValueError(f"a label key is not a string: {key!r}")
    prefix, _, name = key.rpartition("/")
    if (prefix and (len(prefix) > 253 or not PREFIX.match(prefix))) or len(name) > 63 \
            or not NAME.match(name):
        raise ValueError(f"not a valid label key: {key}")


def check_value(value, key):
    if not isinstance(value, str):
        raise ValueError(f"{key}: {value!r} is a YAML {type(value).__name__}, not a string "
                         "(quote it: the API server takes only strings)")
    if len(value) > 63 or (value and not NAME.match(value)):
        raise ValueError(f"{key}: not a valid label value: {value!r}")


def check_expression(expr):
    if not isinstance(expr, dict) or set(expr) - {"key", "operator", "values"}:
        raise ValueError(f"a matchExpression has unknown fields: {expr!r}")
    check_key(expr.get("key"))
    op, values = expr.get("operator"), expr.get("values", [])
    if op not in OPERATORS:
        raise ValueError(f"{expr['key']}: unknown operator {op!r}")
    if not isinstance(values, list):
        raise ValueError(f"{expr['key']}: values is not a list")
    for value in values:
        check_value(value, expr["key"])
    if op in ("In", "NotIn") and not values:
        raise ValueError(f"{expr['key']}: {op} needs values")
    if op in ("Exists", "DoesNotExist") and values:
        raise ValueError(f"{expr['key']}: {op} takes no values")
    if op in ("Gt", "Lt") and (len(values) != 1 or not INTEGER.match(values[0])):
        raise ValueError(f"{expr['key']}: {op} takes one integer value")


def expression_matches(expr, labels):
    """None when it matches, else why not."""
    key, op, values = expr["key"], expr["operator"], expr.get("values", [])
    present = key in labels
    value = labels.get(key)
    if op == "In":
        ok = present and value in values
    elif op == "NotIn":
        ok = not present or value not in values
    elif op == "Exists":
        ok = present
    elif op == "DoesNotExist":
        ok = not present
    else:
        if not present or not INTEGER.match(value):
            return f"{key} {op} {values[0]}: the label is {'not an integer' if present else 'absent'}"
        ok = int(value) > int(values[0]) if op == "Gt" else int(value) < int(values[0])
    return None if ok else f"{key} {op} {values}: the node has {value!r}"


def spec_of(doc):
    if not isinstance(doc, dict):
        return None
    if doc.get("kind") == "Pod" or "spec" in doc:
        return doc.get("spec")
    return None


def judge(spec, labels):
    """None when the node is selected, else why not; raises on an invalid spec."""
    selector = spec.get("nodeSelector", {})
    if not isinstance(selector, dict):
        raise ValueError("nodeSelector is not a map")
    for key, value in selector.items():
        check_key(key)
        check_value(value, key)
    affinity = spec.get("affinity", {}).get("nodeAffinity", {})
    required = affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    terms = required.get("nodeSelectorTerms", []) if required else []
    if required is not None and not terms:
        raise ValueError("requiredDuringSchedulingIgnoredDuringExecution without nodeSelectorTerms")
    for term in terms:
        for expr in term.get("matchExpressions", []):
            check_expression(expr)
    for key, value in selector.items():
        if labels.get(key) != value:
            return f"nodeSelector {key}={value}: the node has {labels.get(key)!r}"
    if not terms:
        return None
    whys = []
    for term in terms:
        why = next(filter(None, (expression_matches(e, labels)
                                 for e in term.get("matchExpressions", []))), None)
        if why is None:
            return None
        whys.append(why)
    return "; ".join(whys)


def main(argv):
    if len(argv) != 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as page, open(argv[2], encoding="utf-8") as features:
        blocks, labels = yaml_blocks(page.read()), labels_of(features.read())
    status, number = 0, 0
    for line, text in blocks:
        spec = spec_of(yaml.safe_load(text))
        if not isinstance(spec, dict) or not ({"nodeSelector", "affinity"} & set(spec)):
            continue
        number += 1
        try:
            why = judge(spec, labels)
        except (ValueError, AttributeError, TypeError) as error:
            print(f"example {number} (line {line}): invalid: {error}")
            status = 1
            continue
        print(f"example {number} (line {line}): " + ("selects" if why is None
                                                     else "does not select: " + why))
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
