"""Test helpers: a quick way to play hands, and the real `kiosk` command, in this process
(`cli`) or as a program (`kiosk`)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn

import pytest

from kiosk.rules import HandEntry, KittyEntry, PenaltyEntry, Rulesets, TeamMatch

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def hand(points=None, kitty=None, penalties=(), **kw) -> HandEntry:
    """A HandEntry from plain values: kitty as (points, shape), penalties as dicts."""
    return HandEntry(
        points=points,
        kitty=KittyEntry(*kitty) if kitty else None,
        penalties=tuple(PenaltyEntry(**p) for p in penalties),
        **kw,
    )


def play(match: TeamMatch, *entries: HandEntry) -> tuple[TeamMatch, list]:
    results = []
    for entry in entries:
        match, result = match.play(entry)
        results.append(result)
    return match, results


def at_levels(rulesets: Rulesets, ruleset_id: str, ns: str, ew: str, dealer: str) -> TeamMatch:
    """A match positioned at the given levels with `dealer` to deal (as after a correction)."""
    ruleset = rulesets[ruleset_id]
    match = TeamMatch.start(ruleset, dealer)
    from dataclasses import replace

    return replace(match, levels=(ruleset.ladder.index(ns), ruleset.ladder.index(ew)))


def kiosk(*args: str, stdin: str | None = None, env: dict | None = None
          ) -> subprocess.CompletedProcess[str]:
    """Run the real `kiosk` command line in a subprocess."""
    return subprocess.run(
        [sys.executable, "-m", "kiosk", *args], input=stdin, capture_output=True,
        text=True, cwd=ROOT, env=env, timeout=60)


def cli(*args: str, stdin: str | None = None, env: dict | None = None
        ) -> subprocess.CompletedProcess[str]:
    """The `kiosk` command line run in this process: the program's own `main`, with its
    standard streams and environment for the time of the call, so a test of what a command
    says needs no interpreter started (`kiosk` runs the program itself)."""
    from kiosk.cli.main import main

    streams = {name: io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
               for name in ("stdout", "stderr")}
    given = io.TextIOWrapper(io.BytesIO((stdin or "").encode()), encoding="utf-8")
    saved = {name: getattr(sys, name) for name in ("stdin", "stdout", "stderr")}
    saved_env = dict(os.environ)
    if env is not None:
        os.environ.clear()
        os.environ.update(env)
    sys.stdin, sys.stdout, sys.stderr = given, streams["stdout"], streams["stderr"]
    try:
        try:
            code = main(list(args))
        except SystemExit as stop:  # argparse: --help, or a command line it refuses
            code = stop.code if isinstance(stop.code, int) else 0 if stop.code is None else 1
    finally:
        for name, stream in saved.items():
            setattr(sys, name, stream)
        os.environ.clear()
        os.environ.update(saved_env)
    said = {}
    for name, stream in streams.items():
        stream.flush()
        said[name] = stream.buffer.getvalue().decode("utf-8")  # type: ignore[attr-defined]
    return subprocess.CompletedProcess(["kiosk", *args], code, said["stdout"], said["stderr"])


def jsonl(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def ctrl_c_reaches() -> None:
    """`preexec_fn` for a child the test stops with Ctrl-C (SIGINT), as a person's terminal
    would: a suite started in the background of a shell without job control hands its
    children SIGINT ignored, and Python then never raises KeyboardInterrupt."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def fetch(url: str, timeout: float = 10.0, data: bytes | None = None,
          headers: dict | None = None) -> bytes:
    """GET (or POST `data`) `url`, trusting the scorer's self-signed certificate as a hall TV
    that trusted it once does."""
    import ssl
    import urllib.request

    request = urllib.request.Request(url, data=data, headers=headers or {})
    with urllib.request.urlopen(request, timeout=timeout,
                                context=ssl._create_unverified_context()) as reply:
        return reply.read()


def children_running(pid: int, module: str) -> list[int]:
    """The process ids of `pid`'s children running `python -m module` (read from /proc)."""
    found = []
    for children in Path(f"/proc/{pid}/task").glob("*/children"):
        try:
            pids = [int(p) for p in children.read_text().split()]
        except OSError:  # (the thread ended meanwhile)
            continue
        for child in pids:
            try:
                if module.encode() in Path(f"/proc/{child}/cmdline").read_bytes().split(b"\0"):
                    found.append(child)
            except OSError:  # (it ended meanwhile)
                continue
    return found


class ScorerProcess:
    """The real `kiosk scorer` in its own process on loopback (HTTPS, its own certificate);
    `kill()` is a power cut."""

    def __init__(self, data: Path, port: int | None = None, *extra: str,
                 files: int | None = None) -> None:
        self.data, self.port = data, port or free_port()
        self.files = files  # its open-file limit (soft and hard), as `ulimit -n` sets it
        self.tls = "--no-tls" not in extra
        self.url = f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}"
        self.extra = extra
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> ScorerProcess:
        import time

        self.data.mkdir(parents=True, exist_ok=True)
        with open(self.data / "scorer.log", "a") as log:  # a pipe nobody reads could fill
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "kiosk.cli.main", "scorer", "--data", str(self.data),
                 "--port", str(self.port), "--no-mdns", *self.extra], cwd=ROOT, stdout=log,
                stderr=subprocess.STDOUT, preexec_fn=self._limit if self.files else None)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                fetch(self.url + "/api/standings", timeout=1)
                return self
            except OSError:
                if self.proc.poll() is not None:
                    log_text = (self.data / "scorer.log").read_text()
                    raise RuntimeError(f"the scorer exited: {log_text}") from None
                time.sleep(0.1)
        raise RuntimeError("the scorer did not start within 30 s")

    def _limit(self) -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_NOFILE, (self.files, self.files))

    def kill(self, signal: int = 9) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal)
            self.proc.wait(timeout=30)

    def __enter__(self) -> ScorerProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.kill(15)


def tool(name: str) -> str:
    """The path of an OS tool the tests need: a failure under CI (.ci/os-packages.sh installs
    it), a skip elsewhere."""
    path = shutil.which(name)
    if path is None:
        not_installed(name)
    return path


def not_installed(name: str) -> NoReturn:
    """An OS package the test needs is missing: fail under CI, skip elsewhere (`make check`
    on a machine `make test` has not yet set up)."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"{name} is missing: make test installs it (.ci/os-packages.sh)")
    pytest.skip(f"{name} is not installed")


@contextlib.contextmanager
def xvfb(screen: str) -> Iterator[str]:
    """A fresh X display of `screen` (e.g. 1280x720x24): Xvfb picks a free number and says
    which."""
    read, write = os.pipe()
    proc = subprocess.Popen([tool("Xvfb"), "-displayfd", str(write), "-screen", "0", screen,
                             "-nolisten", "tcp"], pass_fds=(write,),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as said:
        number = said.readline().strip()
    try:
        assert number.isdigit(), "Xvfb did not start"
        yield f":{number}"
    finally:
        proc.terminate()
        proc.wait(timeout=10)
