"""What the scorer says on its terminal while it serves (`kiosk/scorer/terminal.py`): its own
warnings in the technician's language, any library's as one line in words, and what only a
developer can use (a traceback, a library's English) in the details file the line names."""

from __future__ import annotations

import asyncio
import logging
import os
import re
import signal
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from kiosk.scorer import terminal
from kiosk.scorer.pipes import DETAILS_ENV
from kiosk.scorer.store.writer import Writer
from kiosk.sqlite import durable as sqlite_durable

from .helpers import ScorerProcess, children_running

CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture
def said(capsys: pytest.CaptureFixture[str], tmp_path: Path,
         monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The scorer's words installed on this test's standard error; its details file."""
    details = tmp_path / terminal.DETAILS
    monkeypatch.setenv(DETAILS_ENV, "")  # (undone after the test, as install sets it)
    terminal.install("zh-Hans", details, "127.0.0.1", 8443)
    yield details
    root = logging.getLogger()
    for handler in [h for h in root.handlers if isinstance(h, terminal.Terminal)]:
        root.removeHandler(handler)


def lines(capsys: pytest.CaptureFixture[str]) -> list[str]:
    return capsys.readouterr().err.splitlines()


def said_with_details(capsys: pytest.CaptureFixture[str], details: Path, line: str,
                      *kept: str) -> None:
    """The terminal said `line`, naming the details file, which keeps each of `kept`."""
    assert lines(capsys) == [f"{line}（详情已写入 {details}）"]
    text = details.read_text("utf-8")
    assert [k for k in kept if k not in text] == []


@pytest.mark.unit
def test_the_scorers_own_warning_is_said_in_words_with_its_details_kept(said, capsys):
    logging.getLogger("kiosk.scorer.checker").warning(
        "terminal.scorer.log.checker_ended", {"s": 1},
        extra={"details": "IncompleteReadError('0 bytes read')"})
    said_with_details(
        capsys, said,
        "注意:       检查牌桌上传数据的进程意外结束：1 秒后重新启动，其间由记分台自己检查",
        "kiosk.scorer.checker", "IncompleteReadError('0 bytes read')")


@pytest.mark.unit
def test_a_failed_copy_of_the_stores_wal_is_said_in_words_its_error_among_the_details(
        said, capsys, tmp_path, monkeypatch):
    """The store's WAL is copied into its file by a thread of the writer's (a full disk makes
    that fail): said as what it means, SQLite's English kept for a developer."""
    opened = []

    class FullDisk:  # the checkpoints' connection, on a disk with no room left
        def __init__(self, db):
            self.db = db

        def execute(self, sql, *args):
            if "wal_checkpoint" in sql:
                raise sqlite3.OperationalError("database or disk is full")
            return self.db.execute(sql, *args)

        def close(self):
            self.db.close()

    def durable(path):  # the writer's own connection as it is, the checkpoints' on that disk
        opened.append(sqlite_durable(path))
        return opened[-1] if len(opened) == 1 else FullDisk(opened[-1])

    monkeypatch.setattr("kiosk.scorer.store.writer.durable", durable)
    path = tmp_path / "store.sqlite"
    sqlite3.connect(path).execute("CREATE TABLE t (x)").connection.close()
    writer = Writer(path)
    asyncio.run(writer.run(lambda db: db.execute("INSERT INTO t VALUES (1)") and None))
    writer.close()  # (after its last copy was tried)
    said_with_details(
        capsys, said, "注意:       把记分台最近写入的数据并入主文件时失败：没有丢失任何数据"
        "（它们仍在日志文件里），一秒后再试", "database or disk is full")


@pytest.mark.unit
def test_a_librarys_warning_is_one_line_in_words_its_english_among_the_details(said, capsys):
    logging.getLogger("asyncio").warning(
        "Unknown child process pid %d, will report returncode 255", 4242)
    said_with_details(capsys, said, "注意:       记分台内部报告了一个问题",
                      "Unknown child process pid 4242, will report returncode 255")


@pytest.mark.unit
def test_a_malformed_uploads_parser_warning_is_not_said(said, capsys):
    """(The upload is answered 400 in words; the parser's warning was said as a problem.)"""
    logging.getLogger("python_multipart.multipart").warning(
        "Expected boundary character %d, got %d at index %d", 45, 103, 2)
    assert lines(capsys) == [] and not said.exists()


@pytest.mark.unit
def test_a_traceback_goes_to_the_details_never_to_the_terminal(said, capsys):
    try:
        {}["missing"]
    except KeyError:
        logging.getLogger("kiosk.scorer.web.app").exception("terminal.scorer.log.checkpoint")
    said_with_details(
        capsys, said,
        "错误:       没能保存计分的中间结果：数据没有丢失，只是下次启动记分台时要多算一会儿",
        "Traceback (most recent call last)", "KeyError: 'missing'")


@pytest.mark.unit
def test_uvicorns_error_in_an_application_is_said_in_words(said):
    """(Through uvicorn's own filter and the terminal's words: where uvicorn's handler writes
    depends on whether an earlier test in this process configured uvicorn's logging.)"""
    uvicorn = logging.getLogger("uvicorn.error")
    error = ZeroDivisionError("division by zero")
    record = uvicorn.makeRecord(uvicorn.name, logging.ERROR, __file__, 1,
                                "Exception in ASGI application\n", (), (type(error), error, None))
    assert uvicorn.filter(record)
    assert terminal.ScorerWords("zh-Hans", said).format(record) == \
        f"错误:       记分台内部报告了一个问题（详情已写入 {said}）"
    assert "ZeroDivisionError: division by zero" in said.read_text("utf-8")


@pytest.mark.unit
def test_a_strangers_garbage_is_said_once_a_minute_with_how_often_it_came(said):
    """Any device on the LAN can send bytes that are no HTTP: 300 in two seconds wrote 300
    lines, scrolling everything else off the terminal."""
    uvicorn = logging.getLogger("uvicorn.error")

    def shown(at: float) -> str | None:
        record = uvicorn.makeRecord(uvicorn.name, logging.WARNING, __file__, 1,
                                    "Invalid HTTP request received.", (), None)
        record.created = at
        return record.getMessage() if uvicorn.filter(record) else None

    first = shown(1000.0)
    assert first is not None and first.startswith("收到一个不是 HTTP 请求的连接")
    assert [shown(1000.0 + n) for n in range(1, 31)] == [None] * 30
    assert shown(1061.0) == first + "（上次说明后又有 30 次）"
    assert shown(1200.0) == first  # (none came meanwhile)


@pytest.mark.unit
def test_the_worker_processes_errors_go_to_the_same_details_file(said):
    assert os.environ[DETAILS_ENV] == str(said)  # (read by each worker: `pipes.as_child`)


@pytest.mark.unit
def test_details_that_cannot_be_written_still_let_the_line_be_said(tmp_path, capsys,
                                                                   monkeypatch):
    monkeypatch.setenv(DETAILS_ENV, "")
    terminal.install("zh-Hans", tmp_path / "gone" / terminal.DETAILS, "127.0.0.1", 8443)
    try:
        logging.getLogger("asyncio").warning("something in English")
        assert lines(capsys) == ["注意:       记分台内部报告了一个问题"]
    finally:
        for handler in [h for h in logging.getLogger().handlers
                        if isinstance(h, terminal.Terminal)]:
            logging.getLogger().removeHandler(handler)


@pytest.mark.process
def test_a_killed_checking_process_is_said_in_words_and_the_stop_says_nothing_english(
        tmp_path):
    data = tmp_path / "scorer"
    with ScorerProcess(data) as scorer:
        assert scorer.proc is not None
        deadline = time.monotonic() + 30
        while not (checkers := children_running(scorer.proc.pid, "kiosk.scorer.checker")):
            assert time.monotonic() < deadline, "no checking process started"
            time.sleep(0.1)
        os.kill(checkers[0], signal.SIGKILL)
        while "检查牌桌上传数据的进程意外结束" not in (data / "scorer.log").read_text("utf-8"):
            assert time.monotonic() < deadline + 30, "the killed process was not said"
            time.sleep(0.1)
        while children_running(scorer.proc.pid, "kiosk.scorer.checker") in ([], checkers):
            assert time.monotonic() < deadline + 60, "no other checking process started"
            time.sleep(0.1)
    said = (data / "scorer.log").read_text("utf-8").splitlines()
    assert [line for line in said if line and not CJK.search(line)] == []
    assert "注意:       检查牌桌上传数据的进程意外结束：1 秒后重新启动，其间由记分台自己检查" \
        f"（详情已写入 {data / terminal.DETAILS}）" in said
    assert "IncompleteReadError" in (data / terminal.DETAILS).read_text("utf-8")
