"""EXPLAIN's three renderings of an ``Analysis``: text (``text``), JSON (``json_plan``) and a
Mermaid graph (``mermaid``). They read the analysis; nothing in the analysis imports them."""
