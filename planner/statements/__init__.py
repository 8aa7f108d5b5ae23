"""Statements and scripts: splitting a script (``script``), the session that runs each statement
against the catalog (``session``), DDL (``ddl``, ``ddl_alter``), SHOW, SET variables and hints."""
