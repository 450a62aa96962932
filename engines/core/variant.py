"""Variant files: TOML data a designer edits, validated before any game runs.

Each game ships `variants/default.toml`, which sets every rule choice with a
comment per key. Any other variant names what it changes and nothing else:

    extends = "default"          # or another variant of the same game
    [scoring]
    megamall_multiplier = 3

A game declares a schema (`dict[dotted key, Rule]`) beside its default file.
Loading merges the chain of `extends`, applies command-line or experiment
overrides (`{"scoring.megamall_multiplier": 3}`), then checks three things
and refuses the file with the key and the reason on the first failure:
unknown keys (with the closest known key), each value's type and range, and
the game's own consistency rules (e.g. more pre-placed pieces than platforms).
"""
from __future__ import annotations

import copy
import difflib
import hashlib
import json
import math
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping


class VariantError(ValueError):
    """A variant file or override that cannot be played; names the key and why."""

    def __init__(self, source: str, key: str, reason: str):
        self.source, self.key, self.reason = source, key, reason
        super().__init__(f"{source}: key '{key}': {reason}")


@dataclass(frozen=True)
class Rule:
    """What one variant key may hold.

    kind: "int", "float", "bool", "str", "int_list", "float_list" or
    "int_table" (a list of int lists). min/max bound numbers and list items;
    length / min_length / max_length bound lists; choices bound strings.
    """

    kind: str
    min: float | None = None
    max: float | None = None
    length: int | None = None
    min_length: int | None = None
    max_length: int | None = None
    choices: tuple[str, ...] | None = None
    doc: str = ""

    def check(self, value: Any) -> str | None:
        """Return why `value` is not allowed, or None."""
        kind = self.kind
        if kind == "bool":
            return None if isinstance(value, bool) else f"must be true or false, not {value!r}"
        if kind == "str":
            if not isinstance(value, str):
                return f"must be a string, not {value!r}"
            if self.choices and value not in self.choices:
                return f"must be one of {', '.join(self.choices)}, not {value!r}"
            return None
        if kind in ("int", "float"):
            return self._check_number(value, kind)
        if kind in ("int_list", "float_list"):
            return self._check_list(value, kind[:-5])
        if kind == "int_table":
            if not isinstance(value, list) or not value:
                return f"must be a non-empty list of lists, not {value!r}"
            for i, row in enumerate(value):
                why = self._check_list(row, "int")
                if why:
                    return f"row {i}: {why}"
            return None
        raise AssertionError(f"unknown rule kind {kind}")

    def _check_number(self, value: Any, kind: str) -> str | None:
        ok = isinstance(value, int) and not isinstance(value, bool)
        if kind == "float":
            ok = ok or isinstance(value, float)
        if not ok:
            return f"must be {'an integer' if kind == 'int' else 'a number'}, not {value!r}"
        if isinstance(value, float) and not math.isfinite(value):
            return f"must be a finite number, not {value!r}"  # nan slips past every < and >
        if self.min is not None and value < self.min:
            return f"must be at least {self.min:g}, not {value}"
        if self.max is not None and value > self.max:
            return f"must be at most {self.max:g}, not {value}"
        return None

    def _check_list(self, value: Any, item_kind: str) -> str | None:
        if not isinstance(value, list):
            return f"must be a list, not {value!r}"
        n = len(value)
        if self.length is not None and n != self.length:
            return f"must have exactly {self.length} items, not {n}"
        if self.min_length is not None and n < self.min_length:
            return f"must have at least {self.min_length} items, not {n}"
        if self.max_length is not None and n > self.max_length:
            return f"must have at most {self.max_length} items, not {n}"
        for i, item in enumerate(value):
            why = self._check_number(item, item_kind)
            if why:
                return f"item {i}: {why}"
        return None


@dataclass(frozen=True)
class Variant:
    """A fully resolved, validated rule set for one game."""

    game_id: str
    name: str
    source: str
    values: dict[str, Any]
    overrides: dict[str, Any] = field(default_factory=dict)

    def get(self, dotted: str) -> Any:
        node: Any = self.values
        for part in dotted.split("."):
            node = node[part]
        return node

    def flat(self) -> dict[str, Any]:
        return flatten(self.values)

    @property
    def digest(self) -> str:
        """Content hash of the resolved rules (names and comments do not count)."""
        text = json.dumps(self.values, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def flatten(tree: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in tree.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, Mapping):
            out.update(flatten(value, dotted + "."))
        else:
            out[dotted] = value
    return out


def _set_dotted(tree: dict[str, Any], dotted: str, value: Any) -> None:
    parts = dotted.split(".")
    node = tree
    for part in parts[:-1]:
        node = node.setdefault(part, {})
    node[parts[-1]] = value


def parse_override(text: str) -> tuple[str, Any]:
    """`key=value` from a command line; the value is read as TOML (3, 2.5, true, [1,2], "x")."""
    if "=" not in text or not text.split("=", 1)[0].strip():
        raise VariantError(f"--set {text}", text.split("=", 1)[0].strip() or text,
                           "an override must look like key=value, e.g. scoring.megamall_multiplier=3")
    key, raw = text.split("=", 1)
    key = key.strip()
    try:
        value = tomllib.loads(f"v = {raw.strip()}")["v"]
    except tomllib.TOMLDecodeError:
        value = raw.strip()  # a bare word is a string
    return key, value


_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")
SAFE_NAME_MAX = 60


def safe_name(name: str) -> str:
    """A variant name fit for a results folder name: letters, digits, `_`, `-`
    and `.` only (anything else becomes `_`), no leading dot or dash (no hidden
    folders, nothing a shell reads as an option, never `..`), at most 60
    characters. Shipped names (`megamall_triple`) come out unchanged."""
    text = _UNSAFE.sub("_", name).strip("._-")
    text = re.sub(r"\.{2,}", ".", text)[:SAFE_NAME_MAX].rstrip("._-")
    return text or "variant"


def _toml_value(value: Any) -> str:
    """How a value is typed on the command line (for messages)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    return json.dumps(value) if isinstance(value, (list, dict)) else str(value)


_TABLE_RE = re.compile(r"^\s*\[\s*([A-Za-z0-9_.\"' -]+?)\s*\]\s*(#.*)?$")
_KEY_RE = re.compile(r"^\s*([A-Za-z0-9_-]+)\s*=")


def _split_comment(line: str) -> tuple[str, str]:
    """(code, comment) of one TOML line; a `#` inside a string is not a comment."""
    quote = ""
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch == "#":
            return line[:i], line[i + 1:].strip()
    return line, ""


def read_comments(text: str) -> dict[str, str]:
    """Dotted key -> the comment a variant file gives it: the comment at the end
    of the key's line, after any comment lines directly above it (a blank line
    or a table header ends such a block). Read line by line because TOML
    parsers drop comments."""
    out: dict[str, str] = {}
    table = ""
    above: list[str] = []
    for line in text.splitlines():
        code, comment = _split_comment(line)
        if not code.strip():
            if comment and line.lstrip().startswith("#"):
                above.append(comment)
            else:
                above = []  # a blank line ends a comment block
            continue
        header = _TABLE_RE.match(code)
        if header and not _KEY_RE.match(code):
            table = header.group(1).replace('"', "").replace("'", "").strip() + "."
            above = []
            continue
        key = _KEY_RE.match(code)
        if key:
            parts = [*above, comment] if comment else above
            text_ = " ".join(p for p in parts if p)
            if text_:
                out[table + key.group(1)] = text_
        above = []
    return out


class VariantLoader:
    """Loads, merges and validates one game's variant files.

    variants_dir holds `default.toml` and the shipped variants; a name that is
    a path to a `.toml` file is loaded from there instead (a designer's own).

    Inside a variant file, `extends` names a shipped variant (`"default"`) or a
    `.toml` file, looked up from the extending file's own folder. It must stay
    in that folder or in the game's variants folder; an absolute path is the
    explicit way to extend a file anywhere else.
    """

    EXTENDS = "extends"

    def __init__(
        self,
        game_id: str,
        variants_dir: Path,
        schema: Mapping[str, Rule],
        consistency: Callable[[dict[str, Any]], list[tuple[str, str]]] | None = None,
    ):
        self.game_id = game_id
        self.variants_dir = Path(variants_dir)
        self.schema = dict(schema)
        self.consistency = consistency

    def names(self) -> list[str]:
        return sorted(p.stem for p in self.variants_dir.glob("*.toml"))

    def describe(self) -> dict[str, str]:
        """Variant name -> its opening comment (what it is for): the comment lines before the
        first line that is not a comment, joined (a first line alone stopped mid-sentence)."""
        out = {}
        for name in self.names():
            text = (self.variants_dir / f"{name}.toml").read_text()
            lines = text.splitlines()
            start = next((i for i, ln in enumerate(lines) if ln.startswith("#")), len(lines))
            block = []
            for ln in lines[start:]:
                if not ln.startswith("#") or not ln.strip("# "):
                    break
                block.append(ln.lstrip("# ").strip())
            out[name] = " ".join(block)
        return out

    @staticmethod
    def _is_path(name: str) -> bool:
        return name.endswith(".toml") or "/" in name or "\\" in name

    def _path(self, name: str, source: str, base_dir: Path | None = None) -> Path:
        """The file a variant name means. `base_dir` is the folder of the file
        whose `extends` names it (None: a name typed by the user, a path from
        the current directory)."""
        key = self.EXTENDS if base_dir is not None else "variant"
        if not isinstance(name, str) or not name.strip():
            raise VariantError(source, key, f"must name a variant or a .toml file, not {name!r}")
        if not self._is_path(name):
            path = self.variants_dir / f"{name}.toml"
            if not path.is_file() and base_dir is not None and (base_dir / f"{name}.toml").is_file():
                path = base_dir / f"{name}.toml"  # a sibling of the extending file
        else:
            if not name.endswith(".toml"):
                raise VariantError(source, key, f"'{name}' is not a variant file (a variant file ends in .toml)")
            given = Path(name).expanduser()
            if base_dir is not None and not given.is_absolute():
                path = base_dir / given
                allowed = (base_dir.resolve(), self.variants_dir.resolve())
                real = path.resolve()
                if not any(real.is_relative_to(folder) for folder in allowed):
                    raise VariantError(source, key, f"'{name}' lies outside this file's folder and the "
                                                    f"{self.game_id} variants folder; give an absolute path "
                                                    "to extend a file elsewhere")
            else:
                path = given
        if not path.is_file():
            known = ", ".join(self.names())
            where = f" (looked in {base_dir})" if base_dir is not None and self._is_path(name) else ""
            raise VariantError(source, key, f"no variant '{name}' for {self.game_id}{where} (known: {known})")
        return path

    def _read(self, name: str, source: str, seen: tuple[str, ...] = (),
              base_dir: Path | None = None) -> dict[str, Any]:
        path = self._path(name, source, base_dir)
        src = str(path)
        if str(path.resolve()) in seen:
            raise VariantError(src, self.EXTENDS, "variants extend each other in a loop")
        try:
            data = tomllib.loads(path.read_text())
        except tomllib.TOMLDecodeError as exc:
            raise VariantError(src, "(file)", f"not valid TOML: {exc}") from None
        parent = data.pop(self.EXTENDS, None)
        self._check_keys(src, data)
        if path.resolve() == (self.variants_dir / "default.toml").resolve():
            return data
        base = self._read(parent or "default", src, seen + (str(path.resolve()),), base_dir=path.parent)
        for key, value in flatten(data).items():
            _set_dotted(base, key, value)
        return base

    def _check_keys(self, source: str, data: Mapping[str, Any]) -> None:
        for key in flatten(data):
            if key not in self.schema:
                close = difflib.get_close_matches(key, self.schema, n=1)
                hint = f" (did you mean '{close[0]}'?)" if close else ""
                raise VariantError(source, key, f"unknown key for {self.game_id}{hint}")

    def comments(self, name: str | None = None) -> dict[str, str]:
        """Dotted key -> its comment, from the default file and then each file
        of the `extends` chain (a variant's own comment on a key it changes
        wins over the default's)."""
        chain: list[Path] = []
        path = self._path(name or "default", "command line")
        default = (self.variants_dir / "default.toml").resolve()
        while True:
            chain.append(path)
            if path.resolve() == default or len(chain) > 32:
                break
            parent = tomllib.loads(path.read_text()).get(self.EXTENDS) or "default"
            path = self._path(parent, str(path), path.parent)
        out: dict[str, str] = {}
        for file in reversed(chain):
            out.update(read_comments(file.read_text()))
        return {k: v for k, v in out.items() if k in self.schema}

    @staticmethod
    def _override_where(source: str, key: str, value: Any) -> str:
        """Who to blame for an override: `--set key=value` as the user typed it."""
        typed = f"{key}={_toml_value(value)}"
        return f"--set {typed}" if source == "command line" else f"{source} override {typed}"

    def load(self, name: str | None = None, overrides: Mapping[str, Any] | None = None,
             source: str = "command line") -> Variant:
        name = name or "default"
        values = self._read(name, source)
        overrides = {k: v for key, value in (overrides or {}).items()
                     for k, v in (flatten(value, key + ".") if isinstance(value, Mapping) else {key: value}).items()}
        for key, value in overrides.items():
            self._check_keys(self._override_where(source, key, value), {key: value})
        for key, value in overrides.items():
            _set_dotted(values, key, copy.deepcopy(value))
        origin = str(self._path(name, source))
        # a rule the overrides did not touch can still fail because of them
        # (fewer districts leave a Greenspace off the board): name both
        blame = origin
        if overrides:
            blame += " with " + ", ".join(self._override_where(source, k, v) for k, v in overrides.items())
        flat = flatten(values)
        for key, rule in self.schema.items():
            where = self._override_where(source, key, overrides[key]) if key in overrides else blame
            if key not in flat:
                raise VariantError(where, key, "missing (the default variant must set every key)")
            why = rule.check(flat[key])
            if why:
                raise VariantError(where, key, why)
        if self.consistency:
            for key, why in self.consistency(values):
                where = self._override_where(source, key, overrides[key]) if key in overrides else blame
                raise VariantError(where, key, why)
        label = safe_name(Path(name).stem if self._is_path(name) else name)
        return Variant(self.game_id, label, origin, values, overrides)
