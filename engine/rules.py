"""Rule tables: TOML data files in engine/rules/, loaded and checked into RuleTable objects.

A table lists its 台 entries (id, names, 台, description, source line, what it replaces), its
settings (detector switches and table options such as 限聽, 限自摸, 寶牌, 門骰加倍, each with a
note on where it comes from) and its game-flow rules. A user can copy a file, change values and
load it by path; a broken file gets one clear HandError.
"""
from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path

from .errors import HandError, short_repr
from .patterns import PATTERNS
from .yueqing_patterns import YUEQING_PATTERNS

RULES_DIR = Path(__file__).with_name("rules")
SCORERS = ("taiwan", "yueqing")


@dataclass(frozen=True)
class Entry:
    id: str
    name: str
    name_en: str
    tai: int
    description: str
    source: str
    pattern: str
    replaces: tuple[str, ...] = ()
    requires: str | None = None     # a setting that must be true for the entry to count
    group: str | None = None        # 乐清: the 1/10/20/30/100 group an item belongs to
    note: str = ""


@dataclass(frozen=True, eq=False)  # compared and hashed by identity: loaded tables are cached
class RuleTable:
    id: str
    name: str
    name_en: str
    source: str
    scorer: str
    hand_size: int
    entries: tuple[Entry, ...]
    settings: dict = field(default_factory=dict)
    flow: dict = field(default_factory=dict)
    path: str = ""

    def entry(self, entry_id: str) -> Entry:
        for e in self.entries:
            if e.id == entry_id:
                return e
        raise KeyError(entry_id)

    def setting(self, name: str):
        try:
            return self.settings[name]
        except KeyError:
            raise HandError(f"rule table {self.id!r} has no setting {name!r}", code="rule_no_setting",
                            table=self.id, setting=name) from None

    @property
    def dealer_tai_on_self_draw(self) -> bool:
        """Whether the dealer's 莊家/連莊 台 ride on another player's self-draw that the dealer pays
        with the others. Where a table does not say: yes, the common practice (both Taiwanese
        tables set it, each with its source; 乐清 has no dealer 台)."""
        return bool(self.settings.get("dealer_tai_on_self_draw", True))

    @cached_property
    def active_entries(self) -> tuple[Entry, ...]:
        """Entries whose required setting is on (computed once: settings are fixed per table)."""
        return tuple(e for e in self.entries if e.requires is None or self.settings.get(e.requires))

    def summary(self) -> dict:
        return {"id": self.id, "name": self.name, "name_en": self.name_en, "source": self.source,
                "entries": len(self.entries)}


def _unwrap(values: dict, what: str) -> dict:
    """Settings may be plain values or {value = …, note = …}."""
    out = {}
    for key, v in values.items():
        if isinstance(v, dict):
            if "value" not in v:
                raise HandError(f"{what}.{key} needs a 'value'", code="rule_setting_value", setting=f"{what}.{key}")
            v = v["value"]
        out[key] = v
    return out


def _check_replacements(entries: list[Entry], where: str) -> None:
    ids = {e.id for e in entries}
    graph = {e.id: e.replaces for e in entries}
    for e in entries:
        for r in e.replaces:
            if r not in ids:
                raise HandError(f"{where}: entry {e.id!r} replaces unknown entry {r!r}", code="rule_replaces_unknown",
                                where=where, entry=e.id, other=r)
    state: dict[str, int] = {}

    def visit(node: str, trail: list[str]) -> None:
        if state.get(node) == 2:
            return
        if state.get(node) == 1:
            cycle = " -> ".join(trail[trail.index(node):] + [node])
            raise HandError(f"{where}: replacements form a cycle: {cycle}", code="rule_replaces_cycle",
                            where=where, cycle=cycle)
        state[node] = 1
        for nxt in graph[node]:
            visit(nxt, trail + [node])
        state[node] = 2

    for e in entries:
        visit(e.id, [])


def parse_table(data: dict, where: str, known_patterns: frozenset[str]) -> RuleTable:
    try:
        head = data["table"]
        raw_entries = data["entry"]
    except KeyError as missing:
        raise HandError(f"{where}: missing [{missing.args[0]}] section", code="rule_missing_section",
                        where=where, section=missing.args[0]) from None
    scorer = head.get("scorer", "taiwan")
    if scorer not in SCORERS:
        raise HandError(f"{where}: scorer must be one of {', '.join(SCORERS)}, got {short_repr(scorer)}",
                        code="rule_scorer", where=where, value=scorer, known=", ".join(SCORERS))
    settings = _unwrap(data.get("settings", {}), "settings")
    entries: list[Entry] = []
    seen: set[str] = set()
    for i, raw in enumerate(raw_entries):
        eid = raw.get("id")
        if not isinstance(eid, str) or not eid:
            raise HandError(f"{where}: entry #{i + 1} has no id", code="rule_entry_no_id", where=where, n=i + 1)
        if eid in seen:
            raise HandError(f"{where}: entry {eid!r} appears twice", code="rule_entry_twice", where=where, entry=eid)
        seen.add(eid)
        pattern = raw.get("pattern", eid)
        if pattern not in known_patterns:
            raise HandError(f"{where}: entry {eid!r} uses unknown pattern {short_repr(pattern)}", code="rule_unknown_pattern",
                            where=where, entry=eid, pattern=pattern)
        tai = raw.get("tai")
        if isinstance(tai, bool) or not isinstance(tai, int) or not 0 <= tai <= 1000:
            raise HandError(f"{where}: entry {eid!r} has a bad tai value {short_repr(tai)} (a whole number 0-1000)",
                            code="rule_bad_tai", where=where, entry=eid, value=tai)
        replaces = raw.get("replaces", [])
        if not isinstance(replaces, list) or not all(isinstance(r, str) for r in replaces):
            raise HandError(f"{where}: entry {eid!r}: 'replaces' must be a list of entry ids", code="rule_replaces_list",
                            where=where, entry=eid, key="replaces")
        # replaces_when / replaces_unless = { setting = [ids] }: replacements that depend on a
        # setting, for the points where tables disagree (NOTES.md)
        for key, when in (("replaces_when", True), ("replaces_unless", False)):
            conditional = raw.get(key, {})
            if not isinstance(conditional, dict):
                raise HandError(f"{where}: entry {eid!r}: '{key}' must map settings to entry ids",
                                code="rule_conditional_map", where=where, entry=eid, key=key)
            for setting, ids in conditional.items():
                if setting not in settings:
                    raise HandError(f"{where}: entry {eid!r}: {key} names unknown setting {setting!r}",
                                    code="rule_unknown_setting", where=where, entry=eid, setting=setting)
                if not isinstance(ids, list) or not all(isinstance(r, str) for r in ids):
                    raise HandError(f"{where}: entry {eid!r}: {key}.{setting} must be a list of entry ids",
                                    code="rule_replaces_list", where=where, entry=eid, key=f"{key}.{setting}")
                if bool(settings[setting]) == when:
                    replaces = replaces + [r for r in ids if r not in replaces]
        requires = raw.get("requires")
        if requires is not None and requires not in settings:
            raise HandError(f"{where}: entry {eid!r} requires unknown setting {short_repr(requires)}",
                            code="rule_unknown_setting", where=where, entry=eid, setting=requires)
        for key in ("name", "name_en", "description", "source"):
            if not isinstance(raw.get(key), str) or not raw.get(key):
                raise HandError(f"{where}: entry {eid!r} needs a text '{key}'", code="rule_entry_text",
                                where=where, entry=eid, key=key)
        unknown = set(raw) - {"id", "pattern", "name", "name_en", "tai", "description", "source",
                              "replaces", "replaces_when", "replaces_unless", "requires", "group", "note"}
        if unknown:
            raise HandError(f"{where}: entry {eid!r} has unknown key {short_repr(sorted(unknown)[0])}",
                            code="rule_entry_key", where=where, entry=eid, key=sorted(unknown)[0])
        entries.append(Entry(id=eid, name=raw["name"], name_en=raw["name_en"], tai=tai,
                             description=raw["description"], source=raw["source"], pattern=pattern,
                             replaces=tuple(replaces), requires=requires, group=raw.get("group"),
                             note=raw.get("note", "")))
    _check_replacements(entries, where)
    hand_size = head.get("hand_size", 16)
    if hand_size not in (13, 16):
        raise HandError(f"{where}: hand_size must be 13 or 16", code="rule_hand_size", where=where)
    return RuleTable(id=head.get("id", Path(where).stem), name=head.get("name", ""),
                     name_en=head.get("name_en", ""), source=head.get("source", ""), scorer=scorer,
                     hand_size=hand_size, entries=tuple(entries), settings=settings,
                     flow=dict(data.get("flow", {})), path=where)


def table_names() -> list[str]:
    return sorted(p.stem for p in RULES_DIR.glob("*.toml"))


@lru_cache(maxsize=None)
def known_patterns(scorer: str) -> frozenset[str]:
    """Pattern ids the scorer of a table can detect (data modules: the scorers import this one)."""
    return frozenset(YUEQING_PATTERNS if scorer == "yueqing" else PATTERNS)


@lru_cache(maxsize=64)
def _load_path(path: str, mtime: float) -> RuleTable:
    """Cached per file and modification time, so an edited rule file is read again."""
    data = _resolve_extends(_read_toml(path), path, ())
    scorer = data.get("table", {}).get("scorer", "taiwan")
    return parse_table(data, path, known_patterns(scorer) if scorer in SCORERS else frozenset())


def _read_toml(path: str) -> dict:
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except OSError as e:
        raise HandError(f"cannot read rule file {path}: {e.strerror}", code="rule_file_unreadable", path=path,
                        reason=e.strerror) from None
    except tomllib.TOMLDecodeError as e:
        raise HandError(f"rule file {path} is not valid TOML: {e}", code="rule_file_toml", path=path,
                        reason=str(e)) from None


def _resolve_extends(data: dict, where: str, chain: tuple) -> dict:
    """`extends = "name"`: start from that table; [tai] and [settings] here override its values.

    Two columns of one seed table (台式 / 花式) share rows, names and sources this way.
    """
    base_name = data.get("table", {}).get("extends")
    if base_name is None:
        return data
    if base_name in chain:
        raise HandError(f"{where}: 'extends' forms a cycle through {base_name!r}", code="rule_extends_cycle",
                        where=where, table=base_name)
    base_path = RULES_DIR / f"{base_name}.toml"
    if not base_path.is_file():
        base_path = Path(where).with_name(f"{base_name}.toml")
    if not base_path.is_file():
        raise HandError(f"{where}: extends unknown table {short_repr(base_name)}", code="rule_extends_unknown",
                        where=where, table=base_name)
    base = _resolve_extends(_read_toml(str(base_path)), str(base_path), chain + (base_name,))
    ids = {e.get("id") for e in base.get("entry", [])}
    overrides = data.get("tai", {})
    for eid in overrides:
        if eid not in ids:
            raise HandError(f"{where}: [tai] names unknown entry {short_repr(eid)} of {base_name!r}",
                            code="rule_tai_unknown", where=where, entry=eid, table=base_name)
    entries = [dict(e, tai=overrides.get(e.get("id"), e.get("tai"))) for e in base.get("entry", [])]
    head = {k: v for k, v in data["table"].items() if k != "extends"}
    settings = {**base.get("settings", {}), **data.get("settings", {})}
    unknown = set(data.get("settings", {})) - set(base.get("settings", {}))
    if unknown:
        raise HandError(f"{where}: setting {short_repr(sorted(unknown)[0])} is not a setting of {base_name!r}",
                        code="rule_extends_setting", where=where, setting=sorted(unknown)[0], table=base_name)
    return {**base, "table": {**base["table"], **head}, "settings": settings,
            "flow": {**base.get("flow", {}), **data.get("flow", {})}, "entry": entries}


def load_table(name_or_path: str) -> RuleTable:
    """A shipped table by name ('tw-standard') or a user's TOML file by path."""
    path = RULES_DIR / f"{name_or_path}.toml"
    if not path.is_file():
        path = Path(name_or_path)
        if not path.is_file():
            raise HandError(f"unknown rule table {short_repr(name_or_path)}; known: {', '.join(table_names())}",
                            code="unknown_rule_table", table=name_or_path, known=", ".join(table_names()))
    return _load_path(str(path), path.stat().st_mtime)
