"""``${NAME}`` variables (``--define NAME=value``), substituted in a statement's tree before
binding. In a table position the value is a table name; elsewhere it is parsed as an expression.
Inside string literals a defined variable is replaced too (``'file://${DIR}/data'``), as
benchmark runners do; an undefined one in a string is left as written."""

from __future__ import annotations

import re

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError

from planner.dialect import Flink
from planner.problems import BindError

_IN_STRING = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_.]*)\}")


def substitute(tree: exp.Expr, variables: dict[str, str]) -> exp.Expr:
    if not any(isinstance(n, exp.Parameter) or (isinstance(n, exp.Literal) and n.is_string and "${" in n.this) for n in tree.walk()):
        return tree

    def repl(node: exp.Expr) -> exp.Expr:
        if isinstance(node, exp.Parameter):
            name = node.name
            if name not in variables:
                raise BindError(
                    f"Undefined variable ${{{name}}}",
                    node,
                    f"define it: sqlengine ... --define {name}=<value>",
                )
            value = variables[name]
            if isinstance(node.parent, exp.Table):
                return exp.to_identifier(value)
            try:
                parsed: exp.Expr = sqlglot.parse_one(f"SELECT {value}", read=Flink).expressions[0]
                return parsed
            except ParseError:
                return exp.Literal.string(value)
        if isinstance(node, exp.Literal) and node.is_string and "${" in node.this:
            text = _IN_STRING.sub(lambda m: variables.get(m.group(1), m.group(0)), node.this)
            return exp.Literal.string(text)
        return node

    return tree.copy().transform(repl, copy=False)


