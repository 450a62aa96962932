"""Layouts declared once: a game's state fields and its variant parameters.

Kernels index flat int64 vectors (numba passes every array argument as a
dozen machine words, so a game keeps its state and its rule numbers in one
vector each). A `Layout` is the one declaration of such a vector: a list of
fields (name, size, meaning). From it come

    offsets   name -> first index; written out in the game module as
              module-level ints (`written_out`, checked at import by
              `check`), which numba freezes into the compiled code as
              constants and a grep finds
    size      the vector's length (where the next layout may start)
    views     name -> numpy view of a vector (step API, render, tests)

    META = Layout("meta", [
        Field("phase", 1, "PH_*"),
        Field("dice", 8, "rolled dice, sorted"),
    ])
    # --- META's constants, prefix M_ (python -m engines.core.layout FILE writes them: edit META) ---
    M_PHASE = 0  # PH_*
    M_DICE = 1   # rolled dice, sorted
    M_SIZE = 9   # the layout's size (meta)
    M_END = 9    # the first index after it
    META.check(globals(), "M_")
    META.views(state)["dice"]         # state[1:9]

A `ParamLayout` does the same for the rule vector the kernels read and adds
the variant side: each `Param` names, in one place, the variant key, the
schema rule (engines.core.variant.Rule), the kernel slot and its meaning:

    PARAMS = ParamLayout([
        Param("columns", key="game.columns", rule=Rule("int", 1, 6, doc="columns on the sheet")),
        Param("reroll", key="construction.reroll", rule=Rule("str", choices=("none", "all"))),
        Param("n_players", meaning="players at the table"),        # derived: no variant key
        Param("table", size=7 * 9, meaning="points by type and occupants"),
        Param(key="roof.1.name", rule=Rule("str"), kernel=False),  # schema only
    ])
    SCHEMA = PARAMS.schema()          # variant key -> Rule, for the VariantLoader
    # (K_COLUMNS = 0, ... written out as above)
    PARAMS.check(globals(), "K_")
    cfg = PARAMS.fill(variant.values, n_players=2, table=...)   # int64 vector

`fill` converts each variant-backed parameter (bool -> 0/1, a string with
choices -> its index in the choices, an int as is) and takes every derived
slot from its keyword arguments; a slot left unfilled or an unknown name is
an error, so the vector can never be half set.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, NamedTuple

import numpy as np

from engines.core.variant import Rule


@dataclass(frozen=True)
class Field:
    name: str
    size: int = 1
    meaning: str = ""


class Layout:
    """Consecutive fields of a flat vector, starting at `start`."""

    def __init__(self, name: str, fields: Iterable[Field | tuple], start: int = 0):
        self.name = name
        self.fields: tuple[Field, ...] = tuple(f if isinstance(f, Field) else Field(*f) for f in fields)
        self.start = int(start)
        self.offsets: dict[str, int] = {}
        at = self.start
        for f in self.fields:
            if not f.name.isidentifier():
                raise ValueError(f"layout {name}: field name {f.name!r} is not an identifier")
            if f.name in self.offsets:
                raise ValueError(f"layout {name}: field {f.name!r} declared twice")
            if f.size < 0:
                raise ValueError(f"layout {name}: field {f.name!r} has a negative size")
            self.offsets[f.name] = at
            at += f.size
        self.end = at
        self.size = at - self.start
        self.sizes = {f.name: f.size for f in self.fields}

    def __getitem__(self, name: str) -> int:
        try:
            return self.offsets[name]
        except KeyError:
            raise KeyError(f"layout {self.name} has no field {name!r} "
                           f"(fields: {', '.join(self.offsets)})") from None

    def end_of(self, name: str) -> int:
        """The first index after field `name`."""
        return self[name] + self.sizes[name]

    def offset(self, *names: str):
        """Offsets of `names` (one int for one name, else a tuple)."""
        out = tuple(self[n] for n in names)
        return out[0] if len(out) == 1 else out

    def constants(self, prefix: str = "") -> dict[str, int]:
        """PREFIX + NAME.upper() -> offset, plus PREFIX + 'SIZE' (the layout's size) and PREFIX +
        'END' (the first index after it) when there is a prefix: bare SIZE and END would be taken
        by the first layout without one (Skyline of the World's action END is another thing)."""
        out = {prefix + n.upper(): o for n, o in self.offsets.items()}
        for extra, value in (("SIZE", self.size), ("END", self.end)) if prefix else ():
            if prefix + extra in out:
                raise ValueError(f"layout {self.name}: field {extra.lower()!r} clashes with {prefix + extra}")
            out[prefix + extra] = value
        return out

    def written_out(self, prefix: str = "", variable: str = "") -> str:
        """The constants as the assignment lines a game module keeps checked in (`check`): the
        marker line, one `NAME = offset  # meaning` per field, then SIZE and END."""
        meaning = {prefix + f.name.upper(): f.meaning for f in self.fields}
        meaning[prefix + "SIZE"] = f"the layout's size ({self.name})"
        meaning[prefix + "END"] = "the first index after it"
        constants = self.constants(prefix)
        width = max(len(f"{k} = {v}") for k, v in constants.items())
        lines = [marker_line(variable or self.name, prefix)]
        for k, v in constants.items():
            text = f"{k} = {v}"
            note = " ".join(meaning[k].split())
            lines.append(f"{text:<{width}}  # {note}" if note else text)
        return "\n".join(lines) + "\n"

    def check(self, namespace: dict[str, Any], prefix: str = "") -> None:
        """The module's constants (written out above this call, `written_out`) are this layout's
        offsets: a name missing or a value that differs is an error at import, which names the
        command that writes them again. So a grep finds every constant, and a changed layout can
        never leave a kernel reading a stale offset."""
        if _REWRITING:   # `python -m engines.core.layout` is rewriting the lines: define them
            for k, v in self.constants(prefix).items():
                namespace[k] = v
            return
        wrong = [f"{k} is {namespace[k]!r}, not {v}" if k in namespace else f"{k} is missing"
                 for k, v in self.constants(prefix).items() if namespace.get(k) != v]
        if wrong:
            where = namespace.get("__file__", "the module")
            raise ValueError(f"{where}: the constants of layout {self.name} are out of date ({'; '.join(wrong[:3])}"
                             f"{'; ...' if len(wrong) > 3 else ''}): run  python -m engines.core.layout {where}")

    def views(self, vec: np.ndarray, base: int = 0) -> dict[str, np.ndarray]:
        """name -> vec[base + offset : base + offset + size] (a view: writes go to the vector)."""
        return {f.name: vec[base + self.offsets[f.name]:base + self.offsets[f.name] + f.size] for f in self.fields}

    def describe(self) -> list[tuple[str, int, int, str]]:
        """(name, offset, size, meaning) per field, for docs and debugging."""
        return [(f.name, self.offsets[f.name], f.size, f.meaning) for f in self.fields]


# ---------------------------------------------------------------- written-out constants
# A module writes its layouts' constants out as plain assignments, each block ending in the check:
#
#     # --- META's constants, prefix M_ (python -m engines.core.layout FILE writes them: edit META) ---
#     M_PHASE = 0  # PH_*
#     ...
#     META.check(globals(), "M_")
#
# `python -m engines.core.layout FILE ...` imports each file's module with the checks switched to
# collecting (they define the constants instead, so an out-of-date module still imports) and
# writes every block again from its layout.

_REWRITING = False   # True while rewrite_files imports a module: the checks define, not compare
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z_0-9]* = -?[0-9]+( |$)")
MARKER = re.compile(r"^# --- [A-Za-z_][A-Za-z_0-9]*'s constants, prefix ")
CHECK_LINE = re.compile(r'^(?P<var>[A-Za-z_][A-Za-z_0-9]*)\.check\(globals\(\), "(?P<prefix>[A-Za-z_0-9]*)"\)')


def marker_line(variable: str, prefix: str) -> str:
    return (f"# --- {variable}'s constants, prefix {prefix or '(none)'} (python -m engines.core.layout FILE "
            f"writes them: edit {variable}) ---")


def rewritten_source(text: str, module: Any) -> str:
    """`text` (a module's source) with every written-out block made again from the module's layouts."""
    lines = text.splitlines(keepends=True)
    out: list[str] = []
    for line in lines:
        found = CHECK_LINE.match(line)
        if found:
            variable, prefix = found["var"], found["prefix"]
            layout = getattr(module, variable)
            start = len(out)
            while start > 0 and ASSIGNMENT.match(out[start - 1]):
                start -= 1
            if start > 0 and MARKER.match(out[start - 1]):
                del out[start - 1:]   # the old block: its marker (any prefix: a renamed one too) and assignments
            out.append(layout.written_out(prefix, variable))
        out.append(line)
    return "".join(out)


def rewrite_files(paths: Iterable[str]) -> list[str]:
    """Write the constants of each file again (see above); returns the files that changed."""
    import importlib.util
    import sys
    from pathlib import Path

    global _REWRITING
    changed = []
    for path in paths:
        path = Path(path).resolve()
        name = f"_layout_rewrite_{path.stem}"
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        _REWRITING = True
        try:
            sys.modules[name] = module
            spec.loader.exec_module(module)
        finally:
            _REWRITING = False
            sys.modules.pop(name, None)
        text = path.read_text()
        new = rewritten_source(text, module)
        if new != text:
            path.write_text(new)
            changed.append(str(path))
    return changed


@dataclass(frozen=True)
class Param:
    """One rule parameter: a kernel slot (name, size) and/or a variant key with its schema rule.

    key + rule, kernel=True   variant value -> kernel slot, converted by `fill`
    key + rule, kernel=False  schema only: the game turns it into derived slots
    no key                    a derived slot, given to `fill` by name
    """

    name: str = ""
    size: int = 1
    meaning: str = ""
    key: str | None = None
    rule: Rule | None = None
    kernel: bool = True

    def __post_init__(self):
        if (self.key is None) != (self.rule is None):
            raise ValueError(f"param {self.name or self.key}: a variant key needs a rule and vice versa")
        if self.kernel and not self.name:
            raise ValueError(f"param {self.key}: a kernel slot needs a name")
        if not self.kernel and self.key is None:
            raise ValueError(f"param {self.name}: neither a kernel slot nor a variant key")
        if self.kernel and self.key is not None and self.size != 1:
            raise ValueError(f"param {self.name}: a variant-backed slot holds one number")


def _dotted(values: Mapping[str, Any], key: str) -> Any:
    cur: Any = values
    for part in key.split("."):
        cur = cur[part]
    return cur


class ParamLayout(Layout):
    """The rule vector's layout plus the variant schema, from one list of `Param`s."""

    def __init__(self, params: Iterable[Param], start: int = 0, name: str = "params"):
        self.params: tuple[Param, ...] = tuple(params)
        super().__init__(name, [Field(p.name, p.size, p.meaning or (p.rule.doc if p.rule else ""))
                                for p in self.params if p.kernel], start)
        keys = [p.key for p in self.params if p.key is not None]
        if len(set(keys)) != len(keys):
            raise ValueError(f"{name}: a variant key is declared twice")
        self.by_name = {p.name: p for p in self.params if p.kernel}

    def schema(self) -> dict[str, Rule]:
        """variant key -> Rule, for engines.core.variant.VariantLoader."""
        out = {}
        for p in self.params:
            if p.key is not None:
                rule = p.rule
                if not rule.doc and p.meaning:
                    rule = Rule(**{**rule.__dict__, "doc": p.meaning})
                out[p.key] = rule
        return out

    def slot_of_key(self) -> dict[str, int]:
        """variant key -> kernel slot, for the variant-backed parameters."""
        return {p.key: self.offsets[p.name] for p in self.params if p.key is not None and p.kernel}

    @staticmethod
    def convert(p: Param, value: Any) -> int:
        """A validated variant value as the kernel's int64."""
        if p.rule.kind == "bool":
            return int(bool(value))
        if p.rule.kind == "str":
            if not p.rule.choices:
                raise ValueError(f"param {p.name}: a string needs choices to become a number")
            return p.rule.choices.index(value)
        if p.rule.kind == "int":
            return int(value)
        raise ValueError(f"param {p.name}: kind {p.rule.kind} has no single kernel number")

    def fill(self, values: Mapping[str, Any], **derived: Any) -> np.ndarray:
        """The int64 rule vector (length `end`, slots before `start` zero): each variant-backed
        slot from the nested variant `values`, each derived slot from `derived[name]` (a number
        or an array of the slot's size)."""
        vec = np.zeros(self.end, np.int64)
        unknown = set(derived) - {p.name for p in self.params if p.kernel and p.key is None}
        if unknown:
            raise KeyError(f"{self.name}: no derived slot(s) {sorted(unknown)}")
        for p in self.params:
            if not p.kernel:
                continue
            o = self.offsets[p.name]
            if p.key is not None:
                vec[o] = self.convert(p, _dotted(values, p.key))
                continue
            if p.name not in derived:
                raise KeyError(f"{self.name}: derived slot {p.name!r} not given")
            x = np.asarray(derived[p.name], dtype=np.int64).ravel()
            if x.size != p.size:
                raise ValueError(f"{self.name}: slot {p.name!r} holds {p.size} numbers, got {x.size}")
            vec[o:o + p.size] = x
        return vec

    def get(self, vec: np.ndarray, name: str):
        """A slot by name: an int for a one-number slot, else a view."""
        o, n = self[name], self.sizes[name]
        return int(vec[o]) if n == 1 else vec[o:o + n]


def kernel_params_type(layout: ParamLayout, module: str, aux: str | None = None,
                       shapes: Mapping[str, tuple[int, ...]] | None = None) -> type:
    """The NamedTuple a game's kernels read, from its declared parameters: `cfg` (the layout's int64
    vector) and, with `aux`, one more array under that name (a float table its policies read).
    Python reads a slot by name (`kp.columns`; a sized slot is a view, reshaped by `shapes`), and
    `kp.with_slot(name, value)` is a copy with one slot changed. Bind it in `module` as
    `KernelParams`: numba's cache and pickle find the class by that name."""
    shapes = dict(shapes or {})
    base = NamedTuple("KernelParams", [("cfg", np.ndarray)] + ([(aux, np.ndarray)] if aux else []))

    def __getattr__(self, name: str):
        if name not in layout.sizes:
            raise AttributeError(name)
        value = layout.get(self.cfg, name)
        return value.reshape(shapes[name]) if name in shapes else value

    def with_slot(self, name: str, value: int):
        cfg = self.cfg.copy()
        cfg[layout[name]] = int(value)
        return self._replace(cfg=cfg)

    return type("KernelParams", (base,), dict(
        __slots__=(), __getattr__=__getattr__, with_slot=with_slot, __module__=module, __qualname__="KernelParams",
        __doc__=f"The kernels' parameters: cfg (layout {layout.name})" + (f" and {aux}" if aux else "") + "."))


if __name__ == "__main__":
    import sys

    from engines.core import layout   # the module the games import (this file runs as __main__)

    for changed in layout.rewrite_files(sys.argv[1:]):
        print(f"rewrote {changed}")
