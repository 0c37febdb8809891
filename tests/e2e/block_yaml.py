#!/usr/bin/python3
"""A reader for the block YAML that gcloud prints for a resource (`--format yaml`, the default of
`describe`), so the tests can use the standard library only.

It reads what gcloud's yaml printer writes for JSON data: nested block mappings, block sequences
(`- item`, at the key's indentation or deeper), plain scalars (null, true/false, integers, floats,
strings, folded over several lines), single-quoted strings ('' escapes a quote, line breaks fold)
and double-quoted strings with the common escapes, and the flow forms `{}` and `[]`. Anything else
raises ValueError. Not a general YAML parser.
"""

import json
import re

_INT = re.compile(r"^[-+]?(0|[1-9][0-9]*)$")
_FLOAT = re.compile(r"^[-+]?([0-9]+\.[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$")
_KEY = re.compile(r"^(?P<key>'(?:[^']|'')*'|\"(?:[^\"\\]|\\.)*\"|[^'\"#\s][^:]*?):(?: (?P<rest>.*))?$")


def loads(text):
    lines = []
    for number, raw in enumerate(text.splitlines(), 1):
        if not raw.strip() or raw.lstrip().startswith("#") or raw.strip() == "---":
            continue
        lines.append((len(raw) - len(raw.lstrip(" ")), raw.strip(), number))
    if not lines:
        return None
    reader = _Reader(lines)
    value = reader.node(lines[0][0])
    if reader.pos != len(lines):
        raise ValueError("line %d: unexpected content" % lines[reader.pos][2])
    return value


class _Reader:
    def __init__(self, lines):
        self.lines = lines
        self.pos = 0

    def node(self, indent):
        line_indent, text, _ = self.lines[self.pos]
        if line_indent != indent:
            raise ValueError("line %d: bad indentation" % self.lines[self.pos][2])
        if text == "-" or text.startswith("- "):
            return self.sequence(indent)
        if _KEY.match(text):
            return self.mapping(indent)
        return self.scalar_lines(indent - 1, text)

    def sequence(self, indent):
        items = []
        while self.pos < len(self.lines):
            line_indent, text, number = self.lines[self.pos]
            if line_indent != indent or not (text == "-" or text.startswith("- ")):
                break
            rest = text[2:].strip()
            if not rest:
                self.pos += 1
                items.append(self.nested(indent))
                continue
            # "- key: value" starts a mapping whose keys sit two columns further in.
            self.lines[self.pos] = (indent + 2, rest, number)
            items.append(self.node(indent + 2))
        return items

    def mapping(self, indent):
        result = {}
        while self.pos < len(self.lines):
            line_indent, text, number = self.lines[self.pos]
            if line_indent != indent:
                if line_indent > indent:
                    raise ValueError("line %d: bad indentation" % number)
                break
            match = _KEY.match(text)
            if not match:
                break
            key = _unquote(match.group("key"))
            rest = (match.group("rest") or "").strip()
            if rest:
                result[key] = self.scalar_lines(indent, rest)
            else:
                self.pos += 1
                result[key] = self.nested(indent, allow_same_indent_sequence=True)
        return result

    def nested(self, indent, allow_same_indent_sequence=False):
        """The value on the following, more indented lines (or a sequence at `indent`)."""
        if self.pos >= len(self.lines):
            return None
        line_indent, text, _ = self.lines[self.pos]
        if line_indent > indent:
            return self.node(line_indent)
        if allow_same_indent_sequence and line_indent == indent and (
                text == "-" or text.startswith("- ")):
            return self.sequence(indent)
        return None

    def scalar_lines(self, indent, first):
        """A scalar starting with `first`, folded over the following deeper lines."""
        parts = [first]
        self.pos += 1
        while self.pos < len(self.lines) and self.lines[self.pos][0] > indent:
            parts.append(self.lines[self.pos][1])
            self.pos += 1
        return _scalar(" ".join(parts))


def _unquote(text):
    if text.startswith("'"):
        if len(text) < 2 or not text.endswith("'"):
            raise ValueError("unterminated quoted string: " + text)
        return text[1:-1].replace("''", "'")
    if text.startswith('"'):
        return json.loads(text)
    return text


def _scalar(text):
    if text[0] in "'\"":
        return _unquote(text)
    if text == "{}":
        return {}
    if text == "[]":
        return []
    if text in ("null", "~"):
        return None
    if text in ("true", "True"):
        return True
    if text in ("false", "False"):
        return False
    if _INT.match(text):
        return int(text)
    if _FLOAT.match(text):
        return float(text)
    if text[0] in "[{&*!|>%@`":
        raise ValueError("unsupported YAML: " + text)
    return text
