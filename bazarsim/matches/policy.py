"""A bidding policy as a small TOML file: when a seat opens, overcalls, supports, passes,
contras and recontras, from the hand model's estimates.

Every threshold is a probability from the model (:mod:`bazarsim.matches.model`): a
bid's ``P(make)`` is the bidder-side estimate for the bidder's own hand; ``P(fail)`` of
the opponents' contract is one minus the defender-side estimate. **This version bids on
the bidder's own hand alone**: it does not read what partner's or the opponents' calls
showed (the model is conditioned on one hand), except that it knows who holds the last
bid. Score-dependent rules (``[[score]]``) shift every threshold by the match score.

:data:`KEYS` documents every key (``bazarsim policy --keys`` prints it); a file with an
unknown key, a value of the wrong type or out of range is refused with the key and its
line.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from bazarsim.analysis.bids import PLAYS
from bazarsim.core.errors import BazarsimError

POLICY_DIR = Path(__file__).parent / "policies"

# key: (type, default, help). Sections are tables of the file; "score" is an array of
# tables, each a rule.
KEYS: dict[str, dict[str, tuple[type, object, str]]] = {
    "": {
        "name": (str, "", "a short name for tables and reports (default: the file's stem)"),
        "description": (str, "", "one line on what the policy does"),
        "kind": (str, "threshold", "threshold: every call by the thresholds below; "
                                   "simulation: a close call decided by simulation, as "
                                   "analyze --auction judges calls (the thresholds are its "
                                   "base policy and its own later calls; see [simulation])"),
    },
    "open": {
        "make": (float, 0.6, "open (first bid of the auction) in the kind and at the level "
                             "whose P(make) is at least this"),
        "jump": (bool, False, "open at the highest level that reaches `make` (true) or at the "
                              "lowest legal level, raising later if overcalled (false)"),
    },
    "overcall": {
        "make": (float, 0.65, "bid over an opponent's bid when P(make) of the lowest legal bid "
                              "of some kind is at least this"),
    },
    "support": {
        "make": (float, 0.55, "raise partner's kind over an opponent's bid when my own P(make) "
                              "for it is at least this (the model does not know partner's "
                              "hand: set it below `overcall.make` to credit partner's bid)"),
    },
    "capot": {
        "make": (float, 0.8, "bid capot when P(capot) of the kind is at least this "
                             "(1.01, above any probability: never)"),
    },
    "contra": {
        "fail": (float, 0.7, "contra the opponents' bid when P(it fails) from my hand is at "
                             "least this (1.01, above any probability: never)"),
    },
    "recontra": {
        "make": (float, 0.8, "recontra a contra on my side's bid when my P(make) is at least "
                             "this (1.01, above any probability: never)"),
    },
    "likelihood": {
        "softness": (float, 0.05, "how a listener models this policy's calls (bazarsim infer, "
                                  "players that listen): on each deal the thresholds all move "
                                  "by one random amount, logistic with this scale, so a call "
                                  "near its threshold is likely, a far one unlikely (0: the "
                                  "thresholds exactly)"),
        "floor": (float, 0.02, "and this share of its calls is taken as made at random among "
                               "the legal ones, so that no call makes a hand impossible (0: "
                               "none; below 1)"),
    },
    "simulation": {
        "worlds": (int, 200, "kind = simulation: the ESS of the auction-weighted worlds a "
                             "simulated call is judged on"),
        "play": (str, "dd", "how each world's final contract is played: dd (double dummy) "
                            "or sd (four PIMC players of 20 worlds; much slower)"),
        "assume": (str, "careful", "the policy assumed for the other three seats, in the "
                                   "worlds' weights and in playing the auction on (a shipped "
                                   "name or a threshold policy file)"),
        "margin": (float, 0.05, "keep the base call without simulating when it stays the "
                                "same however every threshold moves together by up to this "
                                "(0: never simulate; 1: simulate every call that depends on "
                                "the hand)"),
        "time_limit": (float, 0.0, "seconds a simulated call may take: fewer worlds when "
                                   "the last call's pace says it would take longer (0: no "
                                   "limit; a limit makes results depend on the machine)"),
    },
    "score": {
        "when": (str, "any", "a score rule applies when my side is `behind`, `ahead`, "
                             "`level` or `any`"),
        "by": (int, 0, "behind/ahead by at least this many points (level: within this "
                       "many)"),
        "near": (int, 0, "and the side nearer the target needs at most this many points "
                         "(0: any)"),
        "shift": (float, 0.0, "added to every threshold while the rule applies (negative: "
                              "bolder); the first rule that applies is used"),
    },
}
WHEN = ("any", "behind", "ahead", "level")
KINDS = ("threshold", "simulation")
# the sections of thresholds: key ``k`` of ``[s]`` is the policy's field ``s_k``
THRESHOLD_SECTIONS = tuple(s for s in KEYS if s not in ("", "score", "likelihood",
                                                        "simulation"))
# the sections written as ``[s]`` tables (a policy's key ``k`` of ``[s]`` is field ``s_k``)
TABLE_SECTIONS = (*THRESHOLD_SECTIONS, "likelihood", "simulation")


class PolicyError(BazarsimError):
    """A malformed policy file; the message names the file, the key and its line."""


@dataclass(frozen=True)
class ScoreRule:
    when: str = "any"
    by: int = 0
    near: int = 0
    shift: float = 0.0

    def applies(self, own: int, other: int, target: int) -> bool:
        gap = own - other
        if self.when == "behind" and gap > -self.by:
            return False
        if self.when == "ahead" and gap < self.by:
            return False
        if self.when == "level" and abs(gap) > self.by:
            return False
        return not self.near or target - max(own, other) <= self.near

    def applies_array(self, own: np.ndarray, other: np.ndarray, target: int) -> np.ndarray:
        """:meth:`applies` over arrays of scores."""
        gap = own - other
        ok = np.ones(np.shape(gap), bool)
        if self.when == "behind":
            ok &= gap <= -self.by
        elif self.when == "ahead":
            ok &= gap >= self.by
        elif self.when == "level":
            ok &= np.abs(gap) <= self.by
        if self.near:
            ok &= target - np.maximum(own, other) <= self.near
        return ok


@dataclass(frozen=True)
class Policy:
    """A bidding policy's thresholds (see :data:`KEYS`, which holds their defaults)."""

    name: str = "policy"
    description: str = ""
    open_make: float = KEYS["open"]["make"][1]
    open_jump: bool = KEYS["open"]["jump"][1]
    overcall_make: float = KEYS["overcall"]["make"][1]
    support_make: float = KEYS["support"]["make"][1]
    capot_make: float = KEYS["capot"]["make"][1]
    contra_fail: float = KEYS["contra"]["fail"][1]
    recontra_make: float = KEYS["recontra"]["make"][1]
    likelihood_softness: float = KEYS["likelihood"]["softness"][1]
    likelihood_floor: float = KEYS["likelihood"]["floor"][1]
    score: tuple[ScoreRule, ...] = field(default=())
    kind: str = KEYS[""]["kind"][1]
    simulation_worlds: int = KEYS["simulation"]["worlds"][1]
    simulation_play: str = KEYS["simulation"]["play"][1]
    simulation_assume: str = KEYS["simulation"]["assume"][1]
    simulation_margin: float = KEYS["simulation"]["margin"][1]
    simulation_time_limit: float = KEYS["simulation"]["time_limit"][1]

    def shift(self, own: int, other: int, target: int) -> float:
        """The threshold shift at this match score (first rule that applies, else 0)."""
        for rule in self.score:
            if rule.applies(own, other, target):
                return rule.shift
        return 0.0

    @property
    def score_dependent(self) -> bool:
        return any(r.shift for r in self.score)

    def rule_index(self, own, other, target: int) -> np.ndarray:
        """Which ``[[score]]`` rule is in force at each score (``len(score)``: none)."""
        own, other = np.asarray(own), np.asarray(other)
        out = np.full(np.broadcast(own, other).shape, len(self.score), np.int64)
        for i in range(len(self.score) - 1, -1, -1):  # the first that applies wins
            out = np.where(self.score[i].applies_array(own, other, target), i, out)
        return out

    @property
    def simulates(self) -> bool:
        return self.kind == "simulation"

    def as_dict(self) -> dict:
        """The policy laid out as its file is (:data:`KEYS`' sections; a threshold policy
        without the keys of simulation)."""
        d: dict = {k: getattr(self, k) for k in KEYS[""] if k != "kind" or self.simulates}
        for section in TABLE_SECTIONS:
            if section == "simulation" and not self.simulates:
                continue
            d[section] = {k: getattr(self, f"{section}_{k}") for k in KEYS[section]}
        d["score"] = [r.__dict__ for r in self.score]
        return d


SIMULATION_FIELDS = ("kind", *(f"simulation_{k}" for k in KEYS["simulation"]))


def policy_doc(policy: Policy) -> dict:
    """The policy's fields as a plain dict (what run directories and manifests record); a
    threshold policy's without the fields of simulation, as before they existed, so that
    runs recorded then are the same runs now."""
    d = asdict(policy)
    if not policy.simulates:
        for k in SIMULATION_FIELDS:
            d.pop(k)
    return d


def key_line(text: str, section: str, key: str, index: int = 0) -> int | None:
    """The line (1-based) of ``key`` in ``[section]`` (the ``index``-th ``[[section]]``;
    ``""``: the top level, where a table's header counts as its key); ``None`` when it
    cannot be found (a key written inline or dotted)."""
    current, count = "", {"": 0}
    for i, line in enumerate(text.splitlines(), 1):
        s = line.split("#", 1)[0].strip()
        m = re.match(r"^(\[\[?)\s*([^\]]+?)\s*\]\]?$", s)
        if m:
            current = m.group(2).strip("\"'")
            count[current] = count.get(current, -1) + 1 if m.group(1) == "[[" else 0
            if section == "" and current == key:
                return i
            continue
        if (current == section and count.get(section, 0) == index
                and re.match(rf"^[\"']?{re.escape(key)}[\"']?\s*=", s)):
            return i
    return None


def _where(path, text, section, key, index=0) -> str:
    line = key_line(text, section, key, index)
    name = f"{section}.{key}" if section and key else section or key
    if section == "score":
        name = f"score[{index + 1}].{key}" if key else f"score[{index + 1}]"
    return f"{path}" + (f", line {line}" if line else "") + f": {name}"


def _value(path, text, section, key, value, index=0):
    typ, _default, help_ = KEYS[section][key]
    where = _where(path, text, section, key, index)
    shown = value
    if typ is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if typ is int and isinstance(value, bool) or not isinstance(value, typ):
        raise PolicyError(f"{where} = {shown!r}: expected {typ.__name__} ({help_})", key)
    if section == "" and key == "kind" and value not in KINDS:
        raise PolicyError(f"{where} = {shown!r}: one of {', '.join(KINDS)}", key)
    if section == "simulation":
        _check_simulation(where, key, value, shown, help_)
        return value
    if section == "likelihood" and not 0.0 <= value < 1.0:
        raise PolicyError(f"{where} = {shown!r}: from 0 to below 1 ({help_})", key)
    if typ is float and section not in ("score", "likelihood") and not 0.0 <= value <= 1.01:
        raise PolicyError(f"{where} = {shown!r}: a threshold on a probability, 0 .. 1 "
                          "(or 1.01, above any probability, for never)", key)
    if section == "score" and key == "shift" and not -1.0 <= value <= 1.0:
        raise PolicyError(f"{where} = {shown!r}: a shift between -1 and 1", key)
    if section == "score" and key == "when" and value not in WHEN:
        raise PolicyError(f"{where} = {shown!r}: one of {', '.join(WHEN)}", key)
    if typ is int and value < 0:
        raise PolicyError(f"{where} = {shown!r}: at least 0", key)
    return value


def _check_simulation(where: str, key: str, value, shown, help_: str) -> None:
    if key == "worlds" and not 2 <= value <= 100_000:
        raise PolicyError(f"{where} = {shown!r}: from 2 to 100,000 ({help_})", key)
    if key == "play" and value not in PLAYS:
        raise PolicyError(f"{where} = {shown!r}: one of {', '.join(PLAYS)}", key)
    if key == "margin" and not 0.0 <= value <= 1.0:
        raise PolicyError(f"{where} = {shown!r}: from 0 to 1 ({help_})", key)
    if key == "time_limit" and value < 0:
        raise PolicyError(f"{where} = {shown!r}: at least 0 ({help_})", key)
    if key == "assume" and not value.strip():
        raise PolicyError(f"{where} = {shown!r}: name a policy ({help_})", key)


def parse_policy(text: str, path: str = "<policy>", default_name: str = "policy") -> Policy:
    """Read a policy from TOML text; :class:`PolicyError` names the key and line."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PolicyError(f"{path}: not valid TOML: {exc}", str(path)) from None
    values: dict[str, object] = {}
    rules: list[ScoreRule] = []
    for key, value in doc.items():
        if key in KEYS[""]:
            values[key] = _value(path, text, "", key, value)
            continue
        if key not in KEYS:
            known = ", ".join([*KEYS[""], *(f"[{s}]" for s in KEYS if s)])
            raise PolicyError(f"{_where(path, text, '', key)}: unknown key (known: {known})",
                              key)
        if key == "score":
            if not isinstance(value, list):
                raise PolicyError(f"{_where(path, text, '', key)}: write score rules as "
                                  "[[score]] tables", key)
            for i, table in enumerate(value):
                rules.append(ScoreRule(**_section(path, text, "score", table, i)))
            continue
        if not isinstance(value, dict):
            raise PolicyError(f"{_where(path, text, '', key)}: expected a table [{key}]", key)
        for k, v in _section(path, text, key, value).items():
            values[f"{key}_{k}"] = v
    values.setdefault("name", default_name)
    values["name"] = values["name"] or default_name
    if values.get("kind", "threshold") != "simulation":
        extra = [k for k in values if k.startswith("simulation_")]
        if extra:
            raise PolicyError(f"{_where(path, text, '', 'simulation')}: [simulation] keys "
                              'apply to kind = "simulation" only (add that line at the top)',
                              "simulation")
    return Policy(**values, score=tuple(rules))


def _section(path, text, section, table, index=0) -> dict:
    out = {}
    for k, v in table.items():
        if k not in KEYS[section]:
            known = ", ".join(KEYS[section])
            where = _where(path, text, section, k, index)
            raise PolicyError(f"{where}: unknown key in [{section}] (known: {known})", k)
        out[k] = _value(path, text, section, k, v, index)
    return out


def policy_toml(policy: Policy) -> str:
    """A policy as the TOML file :func:`parse_policy` reads back."""
    def value(v):
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, str):
            return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
        return repr(v)

    d = policy.as_dict()
    lines = [f"name = {value(d['name'])}", f"description = {value(d['description'])}"]
    if policy.simulates:
        lines.append(f"kind = {value(d['kind'])}")
    for section in TABLE_SECTIONS:
        if section in d:
            lines += ["", f"[{section}]"] + [f"{k} = {value(v)}"
                                             for k, v in d[section].items()]
    for rule in d["score"]:
        lines += ["", "[[score]]"] + [f"{k} = {value(v)}" for k, v in rule.items()]
    return "\n".join(lines) + "\n"


def builtin_policies() -> dict[str, Path]:
    """The policies that ship with bazarsim, by name (``careful``, ``bold``)."""
    return {p.stem: p for p in sorted(POLICY_DIR.glob("*.toml"))}


def load_policy(spec: str | Path) -> Policy:
    """A policy from a file, or a shipped one by name (``careful``, ``bold``)."""
    path = Path(spec)
    if not path.exists():
        shipped = builtin_policies()
        if str(spec) in shipped:
            path = shipped[str(spec)]
        else:
            raise PolicyError(f"no policy file {spec!r} (and no shipped policy of that name: "
                              f"{', '.join(shipped)})", str(spec))
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise PolicyError(f"cannot read policy {path}: {exc.strerror}", str(path)) from None
    except UnicodeDecodeError as exc:
        raise PolicyError(f"{path}: not a UTF-8 text file (byte {exc.start}): a policy is "
                          "TOML text", str(path)) from None
    return parse_policy(text, str(spec), path.stem)


def keys_help(width: int = 80) -> str:
    """Every key with its default and meaning, as ``bazarsim policy --keys`` prints it,
    wrapped at ``width`` columns."""
    import textwrap

    lines = []
    for section, keys in KEYS.items():
        lines.append("top level" if not section else
                     "[[score]] (repeatable, first that applies)" if section == "score"
                     else f"[{section}]")
        for k, (typ, default, help_) in keys.items():
            d = repr(default) if typ is str else str(default).lower()
            lines += textwrap.wrap(f"{k} ({typ.__name__}, default {d}): {help_}", width,
                                   initial_indent="  ", subsequent_indent="      ",
                                   break_long_words=False, break_on_hyphens=False)
    return "\n".join(lines)
