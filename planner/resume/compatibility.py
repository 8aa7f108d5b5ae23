"""Whether a new plan can resume the state its job's checkpoint (or a savepoint) was written with:
the fingerprint stored beside the checkpoint against the new plan's (``planner.resume.fingerprint``).

Decided from what Spark does with a checkpoint, tried on Spark 4.3 (docs/running.md, "Savepoints
and compatible restarts"): Spark numbers a query's sources and stateful operators by position and
checks only the names of its operators and the types of their state, so a re-keyed aggregation
whose key keeps its type, or SUM changed into MAX, resumes there with the old state read as the
new one. Here every such change is refused, with its reason, before anything starts; what is
left is what keeps each operator's state meaning what it meant: changed filters and stateless
projections anywhere, another sink, new sink columns computed without state, and new INSERTs of
a statement set (they start from their input's beginning).
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass, field

from planner.analysis.physical import JVM_NAME, JVM_SETTING, PYTHON_NAME
from planner.resume.fingerprint import FORMAT, TIES_BY_ARRIVAL, TIES_BY_BATCH, JobPrint, OperatorPrint, PipelinePrint, Term


@dataclass(frozen=True)
class Change:
    """One reason the new plan cannot resume the old state; ``node``: the new plan's operator it
    is about (None: the job as a whole, or an operator the new plan no longer has)."""

    text: str
    node: int | None = None
    # which is said first: what was added, removed or replaced, then the sources, then the rest
    # (a changed backend usually follows from an operator that now runs otherwise)
    rank: int = field(default=2, compare=False)

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class Verdict:
    changes: tuple[Change, ...] = ()
    notes: tuple[str, ...] = ()  # what is allowed but worth saying (a new INSERT starts afresh)
    # queries whose state is left behind ('execution.savepoint.ignore-unclaimed-state'): their
    # stateful operators are all gone, and their state is removed before the job starts
    unclaimed: tuple[int, ...] = ()

    @property
    def compatible(self) -> bool:
        return not self.changes

    def __str__(self) -> str:
        if self.compatible:
            return "compatible" + "".join(f"; {n}" for n in self.notes)
        more = len(self.changes) - 1
        return str(self.changes[0]) + (f" (and {more} more change{'s' if more != 1 else ''})" if more else "")


def _terms(terms: Sequence[Term], typed: bool = False) -> str:
    return ", ".join(f"{t.text} {t.type}".rstrip() if typed else t.text for t in terms)


def _listed(old: Sequence[Term], new: Sequence[Term]) -> tuple[str, str]:
    """Two lists of terms as a message shows them: with their types when only those differ."""
    typed = [t.text for t in old] == [t.text for t in new]
    return _terms(old, typed), _terms(new, typed)


def compare_operators(old: OperatorPrint, new: OperatorPrint) -> list[Change]:
    """The changes between one operator's old and new fingerprint (the same kind, by position)."""
    out: list[Change] = []
    name, at = new.name, new.node
    if old.kind != new.kind:
        return [Change(f"operator changed: {old} → {new}", at, rank=0)]
    if old.keys != new.keys:
        a, b = _listed(old.keys, new.keys)
        out.append(Change(f"{name} re-keyed: ({a}) → ({b})", at))
    if old.calls != new.calls:
        if len(old.calls) == len(new.calls):
            pairs = [(x, y) for x, y in zip(old.calls, new.calls, strict=True) if x != y]
            a, b = _listed([p[0] for p in pairs], [p[1] for p in pairs])
        else:
            a, b = (f"({s})" for s in _listed(old.calls, new.calls))
        out.append(Change(f"{name} aggregate changed: {a} → {b}", at))
    if old.shape != new.shape:
        gone = [s for s in old.shape if s not in new.shape]
        came = [s for s in new.shape if s not in old.shape]
        # only whether tied rows are numbered: the setting that numbers them (with the JVM operators)
        ties = {TIES_BY_BATCH: "false", TIES_BY_ARRIVAL: "true"}[gone[0]] if sorted(gone + came) == sorted((TIES_BY_BATCH, TIES_BY_ARRIVAL)) else None
        hint = f"; SET '{JVM_SETTING}' = '{ties}' runs it as before" if ties else ""
        out.append(Change(f"{name} changed: {'; '.join(gone) or 'nothing'} → {'; '.join(came) or 'nothing'}{hint}", at))
    if old.rows != new.rows:
        sides = [(x, y) for x, y in zip(old.rows, new.rows, strict=False) if x != y]
        if sides:
            a, b = _listed(*sides[0])
            out.append(Change(f"{name} keeps whole rows, and they changed: ({a}) → ({b})", at))
    if old.runs_as != new.runs_as:
        why = f" ({new.why})" if new.why else ""
        # only the implementation changed (a Top-N on the JVM or in Python): the setting that chooses it
        jvm = {old.runs_as.replace(JVM_NAME, PYTHON_NAME), new.runs_as.replace(JVM_NAME, PYTHON_NAME)}
        hint = "" if len(jvm) > 1 else f"; SET '{JVM_SETTING}' = '{'true' if JVM_NAME in old.runs_as else 'false'}' runs it as before"
        out.append(Change(f"{name} runs as {new.runs_as}{why} now, as {old.runs_as} before{hint}", at))
    return out


def compare_pipelines(old: PipelinePrint, new: PipelinePrint, ignore_unclaimed: bool = False) -> tuple[list[Change], bool]:
    """The changes between one query's old and new fingerprint, and whether its old state is
    left unclaimed (every stateful operator gone, and 'ignore-unclaimed-state' allows it)."""
    out: list[Change] = []
    if old.sources != new.sources:
        out.append(Change(f"sources changed: ({', '.join(old.sources)}) → ({', '.join(new.sources)})", rank=1))
    if ignore_unclaimed and old.operators and not new.operators:
        return out, True
    matcher = difflib.SequenceMatcher(a=[o.kind for o in old.operators], b=[o.kind for o in new.operators], autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        olds, news = old.operators[i1:i2], new.operators[j1:j2]
        if tag == "equal" or (tag == "replace" and len(olds) == len(news)):
            for a, b in zip(olds, news, strict=True):
                out.extend(compare_operators(a, b))
            continue
        out.extend(Change(f"operator added: {b}", b.node, rank=0) for b in news)
        if ignore_unclaimed:
            why = " (Spark keeps a query's state by operator position: only all of it can be left behind)"
        elif not new.operators:
            why = " ('execution.savepoint.ignore-unclaimed-state' = 'true' leaves its state behind)"
        else:
            why = ""
        out.extend(Change(f"operator removed: {a} of the checkpoint{why}", rank=0) for a in olds)
    return out, False


def compare(old: JobPrint, new: JobPrint, *, ignore_unclaimed: bool = False) -> Verdict:
    """Whether ``new`` can resume what was written with ``old``, and if not, why."""
    if old.format != FORMAT:
        return Verdict((Change(f"the checkpoint's plan was written in format {old.format}; this sqlengine writes {FORMAT}"),))
    changes: list[Change] = []
    notes: list[str] = []
    unclaimed: list[int] = []
    if old.stateful and new.stateful and old.backend != new.backend:
        changes.append(Change(f"state backend changed: {old.backend} → {new.backend} (a checkpoint keeps the state store it was written with)", rank=3))
    if old.buckets is not None and new.buckets is not None and old.buckets != new.buckets:
        changes.append(Change(f"'sqlengine.changelog.buckets' changed: {old.buckets} → {new.buckets} (a changelog operator's keys are hashed into them)", rank=3))
    for i, (a, b) in enumerate(zip(old.pipelines, new.pipelines, strict=False)):
        found, left_behind = compare_pipelines(a, b, ignore_unclaimed)
        prefix = f"INSERT INTO {b.sink}: " if len(new.pipelines) > 1 else ""
        changes.extend(Change(prefix + c.text, c.node, c.rank) for c in found)
        if left_behind:
            unclaimed.append(i)
            notes.append(f"the state of {', '.join(map(str, a.operators))} is left behind ('execution.savepoint.ignore-unclaimed-state')")
    for b in new.pipelines[len(old.pipelines) :]:
        notes.append(f"INSERT INTO {b.sink} is new: it starts from the beginning of its input")
    for i, a in enumerate(old.pipelines[len(new.pipelines) :], start=len(new.pipelines)):
        if not a.operators or ignore_unclaimed:
            if a.operators:
                unclaimed.append(i)
                notes.append(f"the state of INSERT INTO {a.sink} is left behind ('execution.savepoint.ignore-unclaimed-state')")
            continue
        changes.append(Change(f"INSERT INTO {a.sink} removed: its state would be left unclaimed ('execution.savepoint.ignore-unclaimed-state' = 'true' allows it)", rank=0))
    return Verdict(tuple(sorted(changes, key=lambda c: c.rank)), tuple(notes), tuple(unclaimed))
