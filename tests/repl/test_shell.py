"""The shell driven through its real prompt (pipe input, keystrokes as a terminal sends them) over
a real Engine and catalog: client statements, errors that never end the session, `;` handling,
Ctrl-C / Ctrl-D, history. No Spark here: nothing in these tests starts a job."""

from __future__ import annotations

import time

from tests.repl.shell_driver import ALT_ENTER, CTRL_C, CTRL_D, ENTER

BIDS = (
    "CREATE TABLE bids (ts TIMESTAMP_LTZ(3), item STRING, price BIGINT, "
    "WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) "
    "WITH ('connector' = 'filesystem', 'path' = '/tmp/nowhere', 'format' = 'json');"
)


def test_ddl_show_describe_and_show_create(engine, shell_of):
    sh = shell_of(engine)
    assert "Table has been created." in sh.run(BIDS)
    out = sh.run("SHOW TABLES;")
    assert "| bids " in out and "1 row in set" in out
    out = sh.run("DESCRIBE bids;")
    assert "TIMESTAMP_LTZ(3) *ROWTIME*" in out and "ts - INTERVAL '1' SECOND" in out
    assert "| price  | BIGINT" in out
    out = sh.run("SHOW CREATE TABLE bids;")
    assert "CREATE TABLE" in out and "'connector' = 'filesystem'" in out
    assert engine.catalog.get_table("bids") is not None


def test_set_alone_lists_every_setting_and_reset_restores(engine, shell_of):
    sh = shell_of(engine)
    out = sh.run("SET;")
    assert "sql-client.execution.result-mode" in out and "| table " in out
    assert "table.exec.state.ttl" in out and "(not set)" in out
    assert "Session property has been set." in sh.run("SET 'sql-client.execution.result-mode' = 'changelog';")
    assert engine.planner.settings["sql-client.execution.result-mode"] == "changelog"
    assert "| changelog" in sh.run("SET;")
    sh.run("RESET 'sql-client.execution.result-mode';")
    assert engine.planner.settings["sql-client.execution.result-mode"] == "table"
    out = sh.run("SET 'sql-client.execution.result-mode' = 'fancy';")
    assert "takes one of table, changelog, tableau" in out
    assert engine.planner.settings["sql-client.execution.result-mode"] == "table"


def test_bad_sql_shows_the_position_and_the_session_goes_on(engine, shell_of):
    sh = shell_of(engine)
    out = sh.run("SELECT item FROM nope;")
    assert "<shell>:1:18: error:" in out and "`nope`" in out
    assert "     |                  ^^^^" in out  # the caret under the name
    out = sh.run("SELEC 1;")
    assert "error:" in out
    assert sh.thread.is_alive()
    assert "Empty set" in sh.run("SHOW VIEWS;")


def test_an_error_stops_the_rest_of_the_buffer(engine, shell_of):
    sh = shell_of(engine)
    out = sh.run(BIDS + " SELECT FROM; SHOW TABLES;")
    assert "Table has been created." in out
    assert "error: Expected table name" in out
    assert "1 statement after it not run." in out
    assert "1 row in set" not in out


def test_a_statement_runs_at_its_semicolon(engine, shell_of):
    sh = shell_of(engine)
    sh.send("SHOW" + ENTER + "TABLES" + ENTER)
    sh.wait_until(lambda: sh.buffer_text() == "SHOW\nTABLES\n", what="a two-line buffer")
    assert sh.shell.prompts == 1  # nothing ran
    out = sh.run(";")
    assert "Empty set" in out
    # a `;` inside a string, a backquoted name or a comment does not end the statement
    sh.send("SELECT ';' AS `a;b` -- ;" + ENTER)
    sh.wait_until(lambda: sh.buffer_text() == "SELECT ';' AS `a;b` -- ;\n", what="an open statement")
    assert sh.shell.prompts == 2
    sh.send(CTRL_C)
    sh.wait_until(lambda: sh.shell.prompts == 3 and sh.buffer_text() == "", what="a cleared buffer")


def test_alt_enter_adds_a_line_to_a_complete_statement(engine, shell_of):
    sh = shell_of(engine)
    sh.send("SHOW TABLES;" + ALT_ENTER)
    sh.wait_until(lambda: sh.buffer_text() == "SHOW TABLES;\n", what="a new line after ;")
    assert sh.shell.prompts == 1
    assert "Empty set" in sh.run("")


def test_a_statement_set_runs_only_after_end(engine, shell_of):
    sh = shell_of(engine)
    sh.run(
        "CREATE TABLE src (k STRING, v BIGINT) WITH ('connector' = 'datagen');"
        "CREATE TABLE out1 (k STRING, c BIGINT) WITH ('connector' = 'blackhole');"
    )
    sh.send("EXECUTE STATEMENT SET BEGIN" + ENTER + "INSERT INTO out1 SELECT k, COUNT(*) FROM src GROUP BY k;" + ENTER)
    sh.wait_until(lambda: sh.buffer_text().endswith("GROUP BY k;\n"), what="an open statement set")
    assert sh.shell.prompts == 2
    mark = sh.mark()
    sh.send("END;" + ENTER)
    # the set's INSERT keeps a group per key forever: the analysis is shown and a question asked
    out = sh.wait_for("Start it anyway? [y/N]", since=mark)
    assert "GroupAggregate: UNBOUNDED" in out and "growing with distinct keys (k)" in out
    out = sh.run("n")
    assert "Not started." in out
    assert engine.job_list() == []


def test_state_warnings_error_refuses_and_ignore_does_not_ask(engine, shell_of):
    sh = shell_of(engine)
    sh.run("CREATE TABLE src (k STRING, v BIGINT) WITH ('connector' = 'datagen');")
    sh.run("SET 'sql-client.state-warnings' = 'error';")
    out = sh.run("SELECT k, COUNT(*) AS c FROM src GROUP BY k;")
    assert "GroupAggregate: UNBOUNDED" in out
    assert "Not started: unbounded state (GroupAggregate)" in out
    assert "[y/N]" not in out
    assert engine.job_list() == []


def test_bounded_state_is_printed_without_a_question(engine, shell_of):
    sh = shell_of(engine)
    sh.run(BIDS)
    sh.run("SET 'sql-client.state-warnings' = 'warn';")
    # EXPLAIN prints the same analysis without running anything
    out = sh.run("EXPLAIN SELECT item, COUNT(*) FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY item, window_start, window_end;")
    assert "== State ==" in out and "WindowAggregate: BOUNDED" in out


def test_ctrl_c_clears_the_line_and_ctrl_d_quits(engine, shell_of):
    sh = shell_of(engine)
    sh.send("SELECT half a statement")
    sh.wait_until(lambda: sh.buffer_text() == "SELECT half a statement", what="typed text")
    sh.send(CTRL_C)
    sh.wait_until(lambda: sh.shell.prompts == 2 and sh.buffer_text() == "", what="a cleared line")
    assert sh.thread.is_alive()
    sh.send(CTRL_D)
    assert sh.join() == 0


def test_quit_and_exit_end_the_shell(engine, shell_of):
    sh = shell_of(engine)
    sh.send("QUIT;" + ENTER)
    assert sh.join() == 0
    sh2 = shell_of(engine)
    sh2.send("exit" + ENTER)  # a bare shell word needs no `;`
    assert sh2.join() == 0


def test_help_lists_statements_with_examples(engine, shell_of):
    out = shell_of(engine).run("HELP;")
    for needle in ("SHOW JOBS;", "DESCRIBE JOB 'id';", "STOP JOB 'id';", "SET 'sql-client.execution.result-mode'", "TUMBLE(TABLE bids"):
        assert needle in out


def test_job_statements_without_jobs(engine, shell_of):
    sh = shell_of(engine)
    assert "No jobs." in sh.run("SHOW JOBS;")
    assert "No job 'abc' (jobs: none" in sh.run("DESCRIBE JOB 'abc';")
    assert "No job 'abc'" in sh.run("STOP JOB 'abc';")
    assert sh.thread.is_alive()


def test_history_is_kept_in_the_home_and_recalled(engine, shell_of, tmp_path):
    history = tmp_path / "home" / "history"
    sh = shell_of(engine, history=history)
    sh.run("SHOW TABLES;")
    sh.send(CTRL_D)
    sh.join()
    assert "SHOW TABLES;" in history.read_text()
    sh2 = shell_of(engine, history=history)
    sh2.send("\x1b[A")  # Up: the previous statement
    sh2.wait_until(lambda: sh2.buffer_text() == "SHOW TABLES;", what="the recalled statement")
    sh2.send(CTRL_C)
    sh2.wait_until(lambda: sh2.shell.prompts == 2 and sh2.buffer_text() == "", what="a cleared line")
    # Ctrl-R: reverse search through the history
    mark = sh2.mark()
    sh2.send("\x12" + "TABL")
    sh2.wait_for("(reverse-i-search)`TABL': SHOW TABLES;", since=mark)
    sh2.send(ENTER)  # take the match
    sh2.wait_until(lambda: sh2.buffer_text() == "SHOW TABLES;", what="the match in the buffer")
    assert "Empty set" in sh2.run("")


def test_show_functions_lists_built_ins(engine, shell_of):
    out = shell_of(engine).run("SHOW FUNCTIONS;")
    assert "| COUNT " in out and "| TUMBLE " in out and "| DATE_FORMAT " in out


def test_a_wait_shows_a_spinner_and_ctrl_c_cancels_it():
    """What the shell does while Spark starts or a job is being set up: a spinner that reads the
    keyboard; Ctrl-C stops waiting (never the shell), and a value that arrives later is handed to
    the clean-up (a job that started after all is stopped)."""
    import threading

    from prompt_toolkit.data_structures import Size
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output.vt100 import Vt100_Output

    from repl.terminal import Terminal
    from tests.repl.shell_driver import ANSI, Screen

    release = threading.Event()
    abandoned = []
    screen = Screen()
    with create_pipe_input() as pipe:
        term = Terminal(pipe, Vt100_Output(screen, lambda: Size(rows=24, columns=100), enable_cpr=False))
        result = {}
        waiter = threading.Thread(
            target=lambda: result.setdefault("w", term.wait(lambda: release.wait(30) and "late value", "Starting Spark…", on_abandon=abandoned.append)),
            daemon=True,
        )
        waiter.start()
        deadline = time.time() + 10
        while "Starting Spark…" not in ANSI.sub("", screen.getvalue()) and time.time() < deadline:
            time.sleep(0.05)
        assert "Ctrl-C cancels" in ANSI.sub("", screen.getvalue())
        pipe.send_text(CTRL_C)
        waiter.join(10)
        assert result["w"].done is False
        release.set()
        deadline = time.time() + 10
        while not abandoned and time.time() < deadline:
            time.sleep(0.05)
        assert abandoned == ["late value"]
        # a quick function shows no spinner at all
        quick = term.wait(lambda: 42, "never shown")
        assert quick.done and quick.value == 42 and "never shown" not in screen.getvalue()
