"""The one schema engine every settings file is read with: `lesson.yml` (and its `slides:`),
a `.qmd`'s front matter and `_metadata.yml` (`format: revealjs:`), a project's `_quarto.yml`
and `course.yml`.

Each file's keys are declared once, as `Key`s of a `Schema`: the type as the reference names
it, the default, a help text, the values it takes, and for an option read but not applied what
happens instead. `Schema.read` checks a YAML mapping node against it with line numbers: a
wrong value is an error at its `file:line`, an unknown key a warning naming the nearest known
key, a key read but not applied a warning saying what happens instead.
`deck.source.schemadoc.reference_markdown` writes the option reference
(`docs/reference/settings.md`) from the same declarations.

Why this small engine and not pydantic (2.14, installed): measured here, importing pydantic's
`BaseModel` costs about 120 ms and five small models in lesson.yml's shape 40–50 ms more, while a
whole no-change build takes about 150 ms and imports this module (the publish stage imports
`deck.source.config`; the course page reads `course.yml` on every build). This module costs
about 2 ms to import, and the settings modules no more than the tables they replace (`difflib`
is imported only for an unknown key). The errors also have to stand at the line of the YAML
node they are about and say what a value must be in this build's words ("must be true or
false"); pydantic reports a path into the data in its own words, so each error would have been
mapped back to a node and reworded anyway. So a key is a small check function with its
declaration around it.
"""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import yaml

from deck.errors import Diagnostic, Loc


class Invalid(Exception):
    """A wrong value: an error at its line; the message says what the value must be."""


class Accepted(Exception):
    """A value that is read and kept (`value`; None: dropped), with a warning saying what
    happens."""

    def __init__(self, message: str, value: Any = None):
        super().__init__(message)
        self.value = value


Check = Callable[[Any], Any]


@dataclass
class Reading:
    """One file being read: where, what was found, and (`context`) what a key's reader needs
    besides the file (course.yml: the lesson folders)."""

    path: str
    diagnostics: list[Diagnostic]
    locs: dict[str, Loc] | None = None
    context: Any = None

    def loc(self, node: yaml.Node) -> Loc:
        return Loc(self.path, node.start_mark.line + 1)

    def error(self, node: yaml.Node, message: str) -> None:
        self.diagnostics.append(Diagnostic(self.loc(node), "config", message))

    def warn(self, node: yaml.Node, message: str) -> None:
        self.diagnostics.append(Diagnostic(self.loc(node), "config", message, "warning"))


# A key whose value's shape decides how it is read (a scalar or a mapping): gets the YAML node,
# the key's dotted name and the reading; returns the value to keep (None: nothing).
Reader = Callable[[yaml.Node, str, Reading], Any]
UNSET: Any = type("Unset", (), {"__repr__": lambda self: "UNSET"})()  # no default: not set


def _any(value: Any) -> Any:
    return value


@dataclass(frozen=True)
class Key:
    """One key of a settings file, declared once: how it is checked and how the reference
    (`docs/reference/settings.md`) shows it."""

    type: str  # as the reference names it: "text", "true/false", "`poll` | `check`"
    help: str  # what it does
    check: Check = _any  # the plain value → the value kept; raises Invalid or Accepted
    default: Any = UNSET  # the value used when the key is not written
    shown: str = ""  # the default as the reference shows it, where it is not one value
    choices: tuple[Any, ...] = ()  # the values it takes (its check refuses others)
    not_applied: str = ""  # read (checked) but not applied: the warning says what instead
    keys: Schema | None = None  # a mapping of keys of its own
    read: Reader | None = None  # reads the YAML node itself
    quiet: bool = False  # not this build's business: passes without a word, not kept

    def default_text(self) -> str:
        """The default as the reference shows it."""
        if self.shown:
            return self.shown
        return "" if self.default is UNSET or self.default is None else shown(self.default)


def shown(value: Any) -> str:
    """A value as written in YAML, in backticks."""
    if isinstance(value, tuple | list):
        return "`[" + ", ".join(str(v) for v in value) + "]`"
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return f"`{yaml_word(value)}`"


class Schema(Mapping[str, Key]):
    """A settings file's keys (or a mapping's inside one), in order. `title` names it in the
    reference; `unknown(key, reading)`, when given, is the warning for a key not declared
    (else: "unknown key … (did you mean …?)")."""

    def __init__(
        self,
        title: str,
        keys: Mapping[str, Key],
        about: str = "",
        unknown: Callable[[str, Reading], str] | None = None,
    ):
        self.title, self.about, self.unknown = title, about, unknown
        self._keys = dict(keys)

    def __getitem__(self, name: str) -> Key:
        return self._keys[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)

    def __repr__(self) -> str:
        return f"Schema({self.title!r}, {list(self._keys)})"

    __hash__ = object.__hash__  # (one schema is one declaration, not a mapping's value)

    def __eq__(self, other: object) -> bool:
        return self is other

    def default(self, name: str) -> Any:
        """The declared default of key `name` (None where there is none)."""
        value = self._keys[name].default
        return None if value is UNSET else value

    def but(self, title: str, about: str = "", **changes: Any) -> Schema:
        """The same keys under another title, with `changes` (`slide_number={"default": True}`:
        key `slide-number` with another default; an underscore stands for a hyphen)."""
        keys = dict(self._keys)
        for name, fields in changes.items():
            name = name.replace("_", "-")
            keys[name] = dataclasses.replace(keys[name], **fields)
        return Schema(title, keys, about or self.about, self.unknown)

    def only(self, *names: str) -> dict[str, Key]:
        """Some of the keys, to declare in another file's schema (the same declaration)."""
        return {name: self._keys[name] for name in names}

    def read(self, node: yaml.Node, reading: Reading, where: str = "") -> dict[str, Any]:
        """The checked values of a mapping node (`where`: its dotted name in the file)."""
        if not isinstance(node, yaml.MappingNode):
            what = f"`{where}`" if where else "the file"
            reading.error(node, f"{what} must be a mapping")
            return {}
        values: dict[str, Any] = {}
        for key_node, value_node in node.value:
            key = str(key_node.value)
            name = f"{where}.{key}" if where else key
            if reading.locs is not None:
                reading.locs[name] = reading.loc(key_node)
            declared = self._keys.get(key)
            if declared is None:
                reading.warn(key_node, self._unknown(key, name, reading))
                continue
            found = self._value(declared, key_node, value_node, name, reading)
            if found is not UNSET:
                values[key] = found
        return values

    def _unknown(self, key: str, name: str, reading: Reading) -> str:
        if self.unknown is not None:
            return self.unknown(key, reading)
        import difflib

        near = difflib.get_close_matches(key, list(self._keys), n=1)
        hint = f" (did you mean `{near[0]}`?)" if near else f" (known: {', '.join(self._keys)})"
        return f"unknown key `{name}` is ignored{hint}"

    def _value(
        self, key: Key, key_node: yaml.Node, node: yaml.Node, name: str, reading: Reading
    ) -> Any:
        """The value to keep for one key (UNSET: none)."""
        if key.quiet:
            return UNSET
        if key.read is not None:
            found = key.read(node, name, reading)
            return UNSET if found is None else found
        if key.keys is not None:
            if isinstance(node, yaml.ScalarNode) and node.value in ("", "~", "null"):
                return UNSET
            return key.keys.read(node, reading, name)
        said = f"`{name}: {node.value if isinstance(node, yaml.ScalarNode) else '…'}`"
        try:
            value = key.check(plain(node))
        except Accepted as note:
            reading.warn(key_node, f"{said}: {note}")
            return UNSET if note.value is None else note.value
        except (Invalid, ValueError, yaml.YAMLError) as exc:  # ValueError: `date: 2020-13-01`
            reading.error(key_node, f"{said} {exc}")
            return UNSET
        if key.not_applied:
            reading.warn(key_node, f"{said}: {key.not_applied}")
            return UNSET
        return value


def plain(node: yaml.Node | None) -> Any:
    """A YAML node as the plain value `yaml.safe_load` gives."""
    return yaml.safe_load(yaml.serialize(node)) if node is not None else None


# The checks keys share, and keys made from them


def as_text(value: Any) -> str:
    if isinstance(value, datetime.date):  # `date: 2026-11-29` reads as a date
        return value.isoformat()
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise Invalid("must be text")
    if "\u2063" in str(value):  # (the build's placeholders are made of it)
        raise Invalid("holds U+2063 (invisible separator), which is reserved by the build")
    return str(value)


def boolean(value: Any) -> bool:
    if not isinstance(value, bool):
        raise Invalid("must be true or false")
    return value


def whole(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise Invalid("must be a whole number")
    return value


def one_of(*words: Any, says: str = "") -> Check:
    """A check taking `words` only (true and false only where they are among them, never 1 or
    0 for them)."""

    def takes(value: Any) -> bool:
        if isinstance(value, bool):
            return any(w is value for w in words)
        return any(not isinstance(w, bool) and w == value for w in words)

    def check(value: Any) -> Any:
        if not takes(value):
            names = [yaml_word(w) for w in words]
            raise Invalid(says or f"must be {', '.join(names[:-1])} or {names[-1]}")
        return value

    return check


def yaml_word(value: Any) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def choices_type(*words: Any) -> str:
    return " | ".join(shown(w) for w in words)


def text(help: str, default: Any = None, **more: Any) -> Key:
    return Key("text", help, as_text, default, **more)


def flag(help: str, default: Any = False, **more: Any) -> Key:
    return Key("true/false", help, boolean, default, **more)


def choice(help: str, *words: Any, default: Any, says: str = "", **more: Any) -> Key:
    check = one_of(*words, says=says)
    return Key(choices_type(*words), help, check, default, choices=words, **more)


def ignored(help: str, note: str) -> Key:
    """A key read (any value) and not applied: a warning with `note`, the value dropped."""
    return Key("any", help, not_applied=note)


def section(help: str, keys: Schema) -> Key:
    return Key("mapping", help, keys=keys)


def aliased(read: Reader, alias: Callable[[str], str | None], note: str) -> Reader:
    """`read`, for a value (a name, or a mapping's keys) that may be written as an alias of the
    name `read` knows (`alias(name)`: that name, or None): each alias read as that name, with a
    warning at it (`name` + `note`); a key written as the name itself wins over its aliases."""

    def as_name(node: yaml.Node, name: str) -> yaml.Node:
        return yaml.ScalarNode(node.tag, name, node.start_mark, node.end_mark)

    def read_aliased(node: yaml.Node, name: str, reading: Reading) -> Any:
        if isinstance(node, yaml.ScalarNode) and alias(str(node.value)):
            reading.warn(node, f"`{node.value}` {note}")
            node = as_name(node, alias(str(node.value)) or "")
        elif isinstance(node, yaml.MappingNode):
            written = {str(k.value) for k, _ in node.value if isinstance(k, yaml.ScalarNode)}
            pairs = []
            for key, value in node.value:
                known = alias(str(key.value)) if isinstance(key, yaml.ScalarNode) else None
                if known and known not in written:
                    reading.warn(key, f"`{key.value}` {note}")
                    key, written = as_name(key, known), written | {known}
                pairs.append((key, value))
            node = yaml.MappingNode(node.tag, pairs, node.start_mark, node.end_mark)
        return read(node, name, reading)

    return read_aliased
