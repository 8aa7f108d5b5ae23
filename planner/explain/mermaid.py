"""EXPLAIN as a Mermaid flowchart, for a pull-request comment: data flows from the scans down to
the sink; stateful operators are filled green (bounded) or red (unbounded) and say why, and a
changelog operator says so (and why it is one)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from planner.logical.visit import distinct_nodes

if TYPE_CHECKING:
    from planner.analysis.analyze import Analysis

MAX_LABEL = 70
STYLES = (
    "classDef bounded fill:#dafbe1,stroke:#1a7f37,color:#0d1117",
    "classDef unbounded fill:#ffebe9,stroke:#cf222e,color:#0d1117,stroke-width:2px",
    "classDef stateless fill:#f6f8fa,stroke:#8c959f,color:#0d1117",
)


def _escape(text: str) -> str:
    """Text safe inside a quoted Mermaid label (no quotes, brackets or markdown backticks)."""
    for a, b in (("&", "#amp;"), ('"', "#quot;"), ("<", "#lt;"), (">", "#gt;"), ("`", ""), ("|", "#124;")):
        text = text.replace(a, b)
    return text


def _short(text: str) -> str:
    return text if len(text) <= MAX_LABEL else text[: MAX_LABEL - 1] + "…"


def render_mermaid(analysis: Analysis, fenced: bool = False) -> str:
    lines = ["flowchart BT"]
    classes: dict[str, list[str]] = {"bounded": [], "unbounded": [], "stateless": []}
    edges: list[str] = []
    for node in distinct_nodes(analysis.plans):
        nid = node.label
        label = [f"<b>{_escape(node.kind)}</b>"]
        if node.describe():
            label.append(_escape(_short(node.describe())))
        physical = analysis.physical_of(node)
        if physical is not None and physical.changelog:
            label.append(_escape(_short(f"changelog operator: {physical.why}")))
        info = analysis.state_of(node)
        if info is not None:
            label.append(f"state: {info.verdict.value.upper()}")
            for p in info.parts:
                label.append(_escape(_short(f"{p.label}: {p.bound}")))
            classes[info.verdict.value].append(nid)
        else:
            classes["stateless"].append(nid)
        lines.append(f'    {nid}["{"<br/>".join(label)}"]')
        for child in node.inputs:
            edges.append(f"    {child.label} --> {nid}")
    lines.extend(edges)
    lines.extend("    " + s for s in STYLES)
    for name, members in classes.items():
        if members:
            lines.append(f"    class {','.join(members)} {name}")
    text = "\n".join(lines) + "\n"
    return f"```mermaid\n{text}```\n" if fenced else text
