"""Agreement between our dialect and Flink's parser over the corpus, and the kinds of disagreement.

    python -m tests.parser_fidelity.report [--examples N] [--write-known [--accept-new]]

``--write-known`` rewrites known_differences.json from the current disagreements. It only drops
entries that now agree unless ``--accept-new`` is given (after the corpus itself changed): the
list is meant to shrink as the dialect gets stricter, never to absorb a regression unseen.
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from tests.parser_fidelity import ours
from tests.parser_fidelity.corpus import CORPUS, load

HERE = Path(__file__).parent
LABELS = HERE / "labels.jsonl"
META = HERE / "labels_meta.json"
KNOWN = HERE / "known_differences.json"
OPS = ("delete", "duplicate", "swap", "truncate")


@dataclass(frozen=True)
class Verdict:
    id: str
    source: str
    sql: str
    flink_accepts: bool
    flink_message: str | None
    flink_line: int | None
    flink_column: int | None
    we_accept: bool
    our_message: str | None
    our_line: int | None
    our_column: int | None
    positioned: bool  # our first error points inside (or just past) the statement
    tree_kind: str | None  # class of the tree we built for it
    bare_expression: bool  # what we accepted is an expression, not a statement
    names: frozenset[str]  # unquoted identifiers in our tree, upper-cased
    from_first: bool  # a SELECT without a select list in our tree (sqlglot's FROM-first queries)

    @property
    def agrees(self) -> bool:
        return self.flink_accepts == self.we_accept and (self.we_accept or self.positioned)

    @property
    def direction(self) -> str:
        return "we accept, Flink rejects" if self.we_accept else "Flink accepts, we reject"

    @property
    def kind(self) -> str:
        """base (a real statement), case (hand-written) or the mutation that made it."""
        if self.source == "hand-written":
            return "case"
        parts = self.source.rsplit(" ", 2)
        return parts[1] if len(parts) == 3 and parts[1] in OPS else "base"


def judge(row: dict, label: dict) -> Verdict:
    from sqlglot import exp

    script = ours.parse_script(row["sql"])
    err = script.errors[0] if script.errors else None
    tree = script.statements[0].tree if script.statements and not err else None
    positioned = err is not None and err.line >= 1 and err.column >= 1 and 0 <= err.span.start <= len(row["sql"])
    return Verdict(
        id=row["id"],
        source=row["source"],
        sql=row["sql"],
        flink_accepts=label["accepted"],
        flink_message=label["message"],
        flink_line=label["line"],
        flink_column=label["column"],
        we_accept=err is None,
        our_message=err.message if err else None,
        our_line=err.line if err else None,
        our_column=err.column if err else None,
        positioned=positioned,
        tree_kind=type(tree).__name__ if tree is not None else None,
        bare_expression=isinstance(tree, (exp.Condition, exp.Alias)) and not isinstance(tree, exp.Query),
        names=frozenset(i.name.upper() for i in tree.find_all(exp.Identifier) if not i.quoted) if tree else frozenset(),
        from_first=tree is not None
        and (
            any(not q.expressions for q in tree.find_all(exp.Select))
            or any(isinstance(f.this, exp.Select) for f in tree.find_all(exp.From))
        ),
    )


def load_labels() -> dict[str, dict]:
    return {label["id"]: label for label in map(json.loads, LABELS.read_text().splitlines())}


@cache
def verdicts() -> tuple[Verdict, ...]:
    labels = load_labels()
    return tuple(judge(row, labels[row["id"]]) for row in load(CORPUS) if row["id"] in labels)


def load_known() -> dict[str, str]:
    return json.loads(KNOWN.read_text()) if KNOWN.exists() else {}


# ---- categories -------------------------------------------------------------------------------


def _token_class(tok, text: str) -> str:
    from sqlglot import TokenType

    raw = text[tok.start : tok.end + 1]
    if raw.startswith("/*+"):
        return "a hint"
    if tok.token_type in (TokenType.STRING, TokenType.NATIONAL_STRING, TokenType.BIT_STRING, TokenType.HEX_STRING):
        return "a string literal"
    if tok.token_type == TokenType.NUMBER:
        return "a number"
    if tok.token_type in (TokenType.VAR, TokenType.IDENTIFIER) or raw.startswith("`"):
        return "an identifier"
    return f"`{raw.upper()}`"


@cache
def _base_sql() -> dict[str, str]:
    return {row["id"]: row["sql"] for row in load(CORPUS)}


def _mutation(v: Verdict) -> str:
    """What the mutation did, in words: `doubled `,``, `missing `)``..."""
    base_id, op, index = v.source.rsplit(" ", 2)
    text = _base_sql()[base_id]
    toks = ours.tokens(text)
    i = int(index)
    cls = _token_class(toks[i], text)
    if op == "delete":
        return f"missing {cls}"
    if op == "duplicate":
        return f"doubled {cls}"
    if op == "swap":
        a, b = sorted((cls, _token_class(toks[i + 1], text)))
        return f"{a} and {b} swapped"
    return f"ends after {_token_class(toks[i - 1], text)}" if i > 0 else "empty"


def _message_shape(message: str | None) -> str:
    """A message without its positions and with quoted words generalised, so that like groups with like."""
    if not message:
        return "?"
    message = re.sub(r" at line \d+, column \d+\.?", "", message)
    return re.sub(r"`[^`]*`", "`…`", message)


@cache
def reserved_words() -> frozenset[str]:
    meta = json.loads(META.read_text()) if META.exists() else {}
    return frozenset(meta.get("reserved_words", "").split())


def _flink_token(message: str | None) -> str:
    """The token(s) Flink's parser stopped at: `Encountered "x y" at ...` gives `x y`."""
    m = re.match(r"""Encountered "(.*?)" at line|Incorrect syntax near the keyword '(.*?)' at line""", message or "")
    return (m.group(1) or m.group(2)) if m else ""


def _text_before(v: Verdict) -> str:
    """The statement up to where Flink's parser stopped."""
    if not v.flink_line or not v.flink_column:
        return ""
    lines = v.sql.split("\n")
    return "\n".join(lines[: v.flink_line - 1] + [lines[v.flink_line - 1][: v.flink_column - 1]])


def category(v: Verdict, flink_rejects: set[str]) -> str:
    """A kind of disagreement, named after what our dialect should do about it."""
    if v.kind in OPS and v.source.rsplit(" ", 2)[0] in flink_rejects:
        return "mutant of a statement Flink already rejects"
    if v.we_accept:
        token = _flink_token(v.flink_message)
        word = token.split(" ")[0].upper()
        if v.bare_expression:
            return "a bare expression accepted as a statement"
        if v.from_first:
            return "a query without a select list (sqlglot's FROM-first form: `SELECT FROM t`, `FROM FROM t`)"
        if v.tree_kind in ("SetOption", "ResetOption"):
            return "a malformed SET or RESET (Flink takes only SET 'key' = 'value' and RESET 'key')"
        if word in reserved_words() and word in v.names:
            return "a reserved word as an unquoted identifier"
        if token.startswith(",") or (token.startswith(")") and re.search(r",\s*$", _text_before(v))):
            return "an empty item in a comma-separated list"
        if "<EOF>" in token:
            return "an incomplete statement (it ends inside a clause: after `GROUP BY`, `AS`, `ON`, ...)"
    elif v.positioned:
        toks = ours.tokens(v.sql)
        if any(a.token_type == b.token_type and _token_class(a, v.sql) == "a string literal" for a, b in itertools.pairwise(toks)):
            return "adjacent string literals (one literal continued: 'a' 'b')"
    if v.kind in OPS:
        return _mutation(v)
    origin = "a hand-written statement" if v.kind == "case" else "a real statement"
    if v.we_accept:
        return f"{origin}, Flink: {_message_shape(v.flink_message)}"
    if not v.positioned:
        return f"{origin} we reject without a position"
    return f"{origin} we cannot parse"


def disagreements(vs: tuple[Verdict, ...] | None = None) -> dict[str, tuple[Verdict, str]]:
    """id -> (verdict, its category) for every statement the two parsers judge differently."""
    vs = verdicts() if vs is None else vs
    flink_rejects = {v.id for v in vs if not v.flink_accepts}
    return {v.id: (v, category(v, flink_rejects)) for v in vs if not v.agrees}


def reason(v: Verdict, cat: str) -> str:
    """One line for known_differences.json: the direction, the category and what was said."""
    said = f"Flink: {_message_shape(v.flink_message)}" if v.we_accept else f"we say: {v.our_message}"
    return f"{v.direction}: {cat}" if said in cat else f"{v.direction}: {cat} [{said}]"


# ---- printing ---------------------------------------------------------------------------------


def _one_line(sql: str, width: int = 110) -> str:
    flat = " ".join(sql.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def print_report(examples: int = 15, out=sys.stdout) -> None:
    vs = verdicts()
    meta = json.loads(META.read_text()) if META.exists() else {}
    diffs = disagreements(vs)
    n = len(vs)
    fa = sum(v.flink_accepts for v in vs)
    over = sum(1 for v, _ in diffs.values() if v.we_accept)
    under = len(diffs) - over
    print(f"Flink {meta.get('flink_version', '?')} parser ({meta.get('parser', '?')}) against our dialect", file=out)
    print(f"statements: {n}; Flink accepts {fa}, rejects {n - fa}", file=out)
    print(f"agreement: {n - len(diffs)}/{n} = {100 * (n - len(diffs)) / n:.1f}%", file=out)
    print(f"  we accept what Flink rejects: {over}", file=out)
    print(f"  we reject what Flink accepts: {under}", file=out)
    both = [v for v in vs if not v.flink_accepts and not v.we_accept and v.flink_line]
    same = sum((v.our_line, v.our_column) == (v.flink_line, v.flink_column) for v in both)
    same_line = sum(v.our_line == v.flink_line for v in both)
    print(f"  both reject, same error position: {same}/{len(both)} (same line: {same_line})", file=out)
    print("\nby kind       total  Flink-acc  Flink-rej  agree%  we-accept-F-rejects  we-reject-F-accepts", file=out)
    kinds: dict[str, list[Verdict]] = defaultdict(list)
    for v in vs:
        kinds[v.kind].append(v)
    for kind in ("base", "case", *OPS):
        group = kinds.get(kind, [])
        if not group:
            continue
        k_over = sum(1 for v in group if v.id in diffs and v.we_accept)
        k_under = sum(1 for v in group if v.id in diffs and not v.we_accept)
        k_fa = sum(v.flink_accepts for v in group)
        agree = 100 * (len(group) - k_over - k_under) / len(group)
        print(f"  {kind:<10} {len(group):>6} {k_fa:>10} {len(group) - k_fa:>10} {agree:>7.1f} {k_over:>20} {k_under:>20}", file=out)
    counts = Counter((v.direction, cat) for v, cat in diffs.values())
    print(f"\n{min(examples, len(counts))} most common categories of disagreement (of {len(counts)}):", file=out)
    for (direction, cat), count in counts.most_common(examples):
        # the shortest example reads best
        v = min((v for v, c in diffs.values() if (v.direction, c) == (direction, cat)), key=lambda v: (len(v.sql), v.id))
        print(f"  {count:>4}  {direction}: {cat}", file=out)
        print(f"        {v.id}: {_one_line(v.sql)}", file=out)
        said = f"Flink: {v.flink_message}" if not v.flink_accepts else f"we say: {v.our_message} (line {v.our_line}, column {v.our_column})"
        print(f"        {said}", file=out)


def write_known(accept_new: bool) -> int:
    current = {i: reason(v, cat) for i, (v, cat) in disagreements().items()}
    known = load_known()
    new = sorted(set(current) - set(known))
    if new and not accept_new:
        print(f"{len(new)} new disagreement(s), not written (fix them, or pass --accept-new after a corpus change):", file=sys.stderr)
        for i in new[:20]:
            print(f"  {i}: {current[i]}", file=sys.stderr)
        return 1
    kept = {i: current[i] for i in sorted(current)}  # reasons are derived: refresh them all
    KNOWN.write_text(json.dumps(kept, indent=1, ensure_ascii=False) + "\n")
    print(f"{KNOWN.name}: {len(kept)} entries ({len(set(known) - set(current))} fixed ones dropped, {len(new)} added)")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=15, help="categories to list, each with one example")
    parser.add_argument("--write-known", action="store_true", help="rewrite known_differences.json")
    parser.add_argument("--accept-new", action="store_true", help="with --write-known: also add new disagreements")
    args = parser.parse_args(argv)
    if args.write_known:
        return write_known(args.accept_new)
    print_report(args.examples)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
