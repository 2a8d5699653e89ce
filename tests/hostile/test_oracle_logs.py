"""Oracle logs no run could write are refused naming the line, not measured (the probe's
oracle-log and metrics cases): `mara-chem metrics` and `mara-chem report` exit 2 with one line naming the file and line, and write
nothing; the loop refuses to resume over such a log. Bad command-line numbers are refused by argparse."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.hostile.conftest import folder_state

HEADER = "call,step,stage,smiles,score,qed,qed_raw,reason\n"
GOOD = ["1,1,1,CCO,0.9,0.9,0.4,", "2,1,1,c1ccccc1O,0.5,0.5,0.5,", "3,1,1,CCN,,,,failed"]

LOGS = [
    ("every call number 1", [GOOD[0], "1,1,1,CCN,0.5,0.5,0.5,", "1,1,1,CCC,0.5,0.5,0.5,"], "line 3: call number 1 repeats"),
    ("a call of 100000", [*GOOD, "100000,2,1,CCCl,0.5,0.5,0.5,"], "line 5: call number 100000 skips"),
    ("call 1e20", [*GOOD, "1e20,2,1,CCCl,0.5,0.5,0.5,"], "line 5: call '1e20' is not a whole number"),
    ("call inf", [*GOOD, "inf,2,1,CCCl,0.5,0.5,0.5,"], "line 5: call 'inf' is not a whole number"),
    ("duplicated call numbers", [*GOOD, "3,2,1,CCCl,0.5,0.5,0.5,"], "line 5: call number 3 repeats"),
    ("non-numeric call", [*GOOD, "four,2,1,CCCl,0.5,0.5,0.5,"], "line 5: call 'four' is not a whole number"),
    ("extra fields", [*GOOD, "4,2,1,CCCl,0.5,0.5,0.5,,extra"], "line 5: 9 fields where the header has 8"),
    ("missing fields", [*GOOD, "4,2,1,CCCl"], "line 5: 4 fields where the header has 8"),
    ("step xyz", [*GOOD, "4,xyz,1,CCCl,0.5,0.5,0.5,"], "line 5: step 'xyz' is not a whole number"),
    ("stage 0", [*GOOD, "4,2,0,CCCl,0.5,0.5,0.5,"], "line 5: stage 0 is below 1"),
    ("endpoint 7.0", [*GOOD, "4,2,1,CCCl,0.5,7.0,0.5,"], "line 5: qed 7.0 lies outside [0, 1]"),
    ("endpoint nan text", [*GOOD, "4,2,1,CCCl,0.5,abc,0.5,"], "line 5: qed 'abc' is not a number"),
    ("score 1.7", [*GOOD, "4,2,1,CCCl,1.7,0.5,0.5,"], "line 5: score 1.7 lies outside [0, 1]"),
]


def _write(folder: Path, text: str | bytes) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "oracle_log.csv"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return folder


@pytest.mark.parametrize("command", ["metrics", "report"])
@pytest.mark.parametrize("name,rows,expected", LOGS, ids=[c[0] for c in LOGS])
def test_a_log_no_run_could_write_is_refused_naming_the_line(tmp_path, cli, command, name, rows, expected):
    run = _write(tmp_path / "run", HEADER + "".join(r + "\n" for r in rows))
    before = folder_state(run)
    code, out = cli(command, run)
    assert code == 2, out
    assert f"oracle_log.csv {expected}" in out, out
    assert "Traceback" not in out and "(run again with -v" not in out
    assert folder_state(run) == before  # no metrics.json, no report


FILES = [
    ("NUL bytes", (HEADER + GOOD[0] + "\n2,1,1,CC\0O,0.5,0.5,0.5,\n").encode(), "oracle_log.csv line 3: NUL bytes"),
    ("binary file", bytes(range(128, 256)) * 8, "oracle_log.csv: not a text file"),
    ("duplicated header columns", ("call,step,stage,smiles,score,qed,qed,reason\n" + GOOD[0] + "\n").encode(),
     "oracle_log.csv line 1: column(s) qed appear more than once"),
    ("header without call", ("step,smiles,score\n1,CCO,0.5\n").encode(), "oracle_log.csv line 1: oracle log lacks"),
    ("empty file", b"", "oracle_log.csv: empty oracle log"),
]


@pytest.mark.parametrize("name,data,expected", FILES, ids=[c[0] for c in FILES])
def test_a_file_that_is_not_an_oracle_log_is_refused_naming_it(tmp_path, cli, name, data, expected):
    run = _write(tmp_path / "run", data)
    code, out = cli("metrics", run)
    assert code == 2 and expected in out, out
    assert not (run / "metrics.json").exists()


def test_calls_beyond_the_recorded_budget_are_refused(tmp_path, cli):
    run = _write(tmp_path / "run", HEADER + "".join(r + "\n" for r in GOOD))
    (run / "run.json").write_text('{"stage": [{"max_oracle_calls": 2}]}')
    code, out = cli("metrics", run)
    assert code == 2 and "oracle_log.csv line 4: call number 3 is beyond the run's budget of 2" in out, out


def test_a_torn_last_line_of_a_live_run_is_still_read(tmp_path, cli):
    """The one thing a live run's log can hold that is not a complete row: read, counted as one dropped line."""
    run = _write(tmp_path / "run", HEADER + "".join(r + "\n" for r in GOOD) + "4,2,1,CC")
    code, out = cli("metrics", run)
    assert code == 0, out
    assert "1 dropped lines" in out


@pytest.mark.parametrize("args,expected", [
    (["--threshold", "1.5"], "--threshold"),
    (["--threshold", "nan"], "--threshold"),
    (["--threshold", "-0.1"], "--threshold"),
    (["--circle-distance", "-1"], "--circle-distance"),
    (["--circle-distance", "inf"], "--circle-distance"),
    (["--budget", "0"], "--budget"),
    (["--n", "-3"], "--n"),
])
def test_bad_numbers_on_the_command_line_are_refused(tmp_path, cli, capsys, args, expected):
    run = _write(tmp_path / "run", HEADER + "".join(r + "\n" for r in GOOD))
    for command in ("metrics", "report"):
        with pytest.raises(SystemExit) as stop:
            cli(command, run, *args)
        assert stop.value.code == 2
        err = capsys.readouterr().err
        assert expected in err and "Traceback" not in err
    assert not (run / "metrics.json").exists() and not (run / "report.html").exists()
