"""What the commands say when they cannot go on, in the default language (简体中文) with no
English word and no developer string (an errno, a Python repr): a table's journal that is not
there, the pin map and the boot config, and the rest of the commands' unhappy paths. The real
`kiosk` command in a subprocess, with no KIOSK_LANG or LANG set; the check for English is
test_cli_words.py's."""

from __future__ import annotations

import argparse
import json
import os
import re

import pytest

from kiosk.hw.pinmap import default_pinmap_text
from kiosk.table.journal import Journal, table_path

from .helpers import free_port
from .test_cli_run_words import chinese
from .test_cli_words import english_left, parsers, run, typed_words, unwrapped, words_of


def no_developer_words(text: str) -> bool:
    return not any(word in text for word in ("Errno", "Traceback", "Error", "None", "'"))


# -- a table's journal ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def played(tmp_path_factory):
    data = tmp_path_factory.mktemp("kiosk")
    done = run("simulate", "--data", str(data), "--table", "3", "--ruleset", "xiamen-2015",
               "--hands", "1", "--speed", "1e9")
    assert done.returncode == 0, done.stderr
    return data


@pytest.mark.unit
@pytest.mark.parametrize("command", [("slip",), ("journal", "show"), ("journal", "export")])
def test_a_table_with_no_journal_is_said_in_chinese(played, command):
    done = run(*command, "--data", str(played), "--table", "9")
    assert done.returncode == 2
    assert done.stderr == (f"kiosk {command[0]}：{played} 中没有第 9 桌的日志：请检查 --data 和 "
                           "--table\n")
    assert chinese(done.stderr, str(played)) and no_developer_words(done.stderr)


@pytest.mark.unit
@pytest.mark.parametrize("command", [("slip",), ("journal", "show"), ("journal", "export")])
def test_a_round_the_journal_does_not_have_is_said_with_the_rounds_it_has(played, command):
    done = run(*command, "--data", str(played), "--table", "3", "--round", "x")
    assert done.returncode == 2
    assert done.stderr == f"kiosk {command[0]}：第 3 桌的日志里没有“x”这一轮；有的轮次：1\n"
    # (export prints a record and has no --lang: its errors are in $KIOSK_LANG's language)
    lang = ("--lang", "en") if command != ("journal", "export") else ()
    english = run(*command, "--data", str(played), "--table", "3", "--round", "x", *lang,
                  lang="en")
    assert english.stderr == (f"kiosk {command[0]}: table 3's journal has no round “x”; its "
                              "rounds: 1\n")


@pytest.mark.unit
def test_a_journal_with_no_match_yet_says_so(tmp_path):
    Journal(table_path(tmp_path, 4)).close()  # a kiosk started, no match set up
    done = run("journal", "show", "--data", str(tmp_path), "--table", "4")
    assert done.returncode == 2
    assert done.stderr == "kiosk journal：第 4 桌的日志里还没有比赛\n"


# -- the pin map and the boot config ----------------------------------------------------------

def pin_map(tmp_path, old: str, new: str):
    text = default_pinmap_text()
    assert old in text
    path = tmp_path / "pins.toml"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


@pytest.mark.process
@pytest.mark.parametrize("old, new, said", [
    ("[buzzer]\ngpio = 12", "[buzzer]\ngpio 12",
     "{path}：不是有效的 TOML（第 {line} 行第 6 列）：请按随附的引脚表来写，每个部件一节，"
     "写作 gpio = 编号"),
    ("[buzzer]\ngpio = 12", "[buzzer]\ngpio = \"12\"",
     '{path}：buzzer 的 gpio = "12"：请写 BCM GPIO 编号（整数，不加引号）'),
    ("[buzzer]\ngpio = 12", "[buzzer]\ngpio = true",
     "{path}：buzzer 的 gpio = true：请写 BCM GPIO 编号（整数，不加引号）"),
    ("[buzzer]\ngpio = 12", "[buzzer]\ngpio = 12\npull = \"up\"",
     "{path}：不认识 buzzer.pull：每个部件下只写 gpio 一项"),
    ("[buzzer]\ngpio = 12", "[buzzer]\ngpio = 12\n[extra]\nvolume = 3",
     "{path}：不认识 extra.volume：每个引脚都写在它的部件下，写作 gpio = 编号"),
    ("[buzzer]\ngpio = 12", "[buzzer]\ngpio = 12\n[seat.X.button]\ngpio = 17",
     "{path}：没有“seat.X.button”这个部件；部件有：seat.N.button seat.N.led seat.E.button "
     "seat.E.led seat.S.button seat.S.led seat.W.button seat.W.led referee.pause "
     "referee.confirm buzzer"),
    ("[buzzer]\ngpio = 12", "",
     "{path}：缺少蜂鸣器（buzzer）：请在 [buzzer] 下写上它的引脚 gpio = 编号"),
])
@pytest.mark.parametrize("command", [("hw", "check"), ("table",)])
def test_a_pin_map_that_cannot_be_used_is_said_in_chinese(tmp_path, old, new, said, command):
    path = pin_map(tmp_path, old, new)
    data = ("--data", str(tmp_path)) if command == ("table",) else ()
    done = run(*command, "--pinmap", str(path), *data)
    assert done.returncode == 2
    lines = path.read_text("utf-8").splitlines()
    line = lines.index("gpio 12") + 1 if "gpio 12" in lines else None  # the file's own line
    assert done.stderr == f"kiosk {command[0]}：{said.format(path=path, line=line)}\n"
    assert no_developer_words(done.stderr.replace('"12"', ""))


@pytest.mark.unit
@pytest.mark.parametrize("where, reason", [("missing.toml", "没有这个文件或目录"),
                                           (".", "这是一个目录，不是文件"),
                                           ("latin1.toml", "不是 UTF-8 编码的文本")])
@pytest.mark.parametrize("option, what", [("--pinmap", "引脚表"), ("--boot-config", "启动配置")])
def test_a_file_that_cannot_be_read_says_why_in_chinese_not_the_errno(tmp_path, where, reason,
                                                                      option, what):
    (tmp_path / "latin1.toml").write_bytes("# Nürnberg\n".encode("latin-1"))
    path = tmp_path / where
    done = run("hw", "check", option, str(path))
    assert done.returncode == 2
    assert done.stderr == f"kiosk hw：无法读取{what} {path}：{reason}\n"
    assert no_developer_words(done.stderr)


@pytest.mark.unit
def test_the_pin_maps_problems_name_the_part_in_words_and_as_the_map_writes_it(tmp_path):
    path = pin_map(tmp_path, "[buzzer]\ngpio = 12", "[buzzer]\ngpio = 14")
    done = run("hw", "check", "--pinmap", str(path))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (f"kiosk hw check：{path}：蜂鸣器（buzzer）：GPIO14 已在 "
                           "firmware_config/config.txt 中分配给了串口（TXD）\n")
    english = run("hw", "check", "--pinmap", str(path), "--lang", "en")
    assert english.stderr == (f"kiosk hw check: {path}: the buzzer (buzzer): GPIO14 is claimed "
                              "by the UART (TXD) in firmware_config/config.txt\n")


@pytest.mark.unit
def test_a_pin_map_that_fits_says_so_in_chinese():
    done = run("hw", "check")
    assert done.returncode == 0
    assert done.stdout == ("随附的引脚表：11 个部件接在 11 个引脚上，没有一个被 "
                           "firmware_config/config.txt 占用\n")
    assert chinese(done.stdout)


# -- every command's --help -------------------------------------------------------------------

def command_paths():
    """Every command and subcommand, as typed after `kiosk` (the top itself first)."""
    from kiosk.cli.main import build_parser

    def walk(parser, path):
        yield path
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    yield from walk(sub, (*path, name))

    return list(walk(build_parser(), ()))


@pytest.mark.unit
def test_every_option_and_argument_of_every_command_says_what_it_is_for(monkeypatch):
    from kiosk.cli.main import build_parser

    monkeypatch.delenv("KIOSK_LANG", raising=False)
    silent = [(parser.prog, action.option_strings or action.dest)
              for parser in parsers(build_parser()) for action in parser._actions
              if not action.help and not isinstance(action, argparse._SubParsersAction)]
    assert silent == []


@pytest.mark.unit
def test_every_commands_help_is_chinese_with_no_english_word_but_what_is_typed():
    paths = command_paths()
    assert len(paths) > 60
    shown = {path: run(*path, "--help") for path in paths}
    from kiosk.rules import Rulesets

    typed = typed_words() | set(Rulesets.load())  # (an example: xiamen-2015)
    english = {" ".join(path): english_left(done.stdout, typed)
               for path, done in shown.items() if english_left(done.stdout, typed)}
    assert english == {}
    for path, done in shown.items():
        assert done.returncode == 0 and done.stdout.startswith("用法：kiosk"), path
    pair = unwrapped(shown[("fleet", "pair-pending")].stdout)
    for key in ("cli.kiosk_data", "cli.table_number", "cli.pair.scorer"):
        assert unwrapped(words_of("zh-Hans")[key]) in pair


# -- a table's journal, as a technician reads it ----------------------------------------------

@pytest.mark.unit
def test_journal_show_names_who_did_each_event_and_what_in_chinese(played):
    from kiosk.table.journal import Journal

    journal = Journal.reader(table_path(played, 3))
    events = list(journal.events("1"))
    journal.close()
    shown = run("journal", "show", "--data", str(played), "--table", "3")
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert lines[0].split() == ["序号", "时间", "操作者", "事件", "内容"]
    log = lines[2:2 + len(events)]
    assert [int(line.split()[0]) for line in log] == [e.seq for e in events]
    assert log[0].split()[2:4] == ["裁判", "设置比赛"]
    first_press = next(i for i, e in enumerate(events) if e.kind == "press")
    seat = {"N": "北", "E": "东", "S": "南", "W": "西"}[events[first_press].actor[-1]]
    assert log[first_press].split()[2:4] == [f"{seat}座按键", "按键"]
    # the facts as journaled, for comparing with the scorer's copy: the kinds' names are not
    for line, event in zip(log, events, strict=True):
        assert event.kind not in line.split('{')[0]
        if event.data:
            assert line.endswith(json.dumps(event.data, ensure_ascii=False))
    assert "记分表" in shown.stdout  # the score sheet follows, as before
    english = run("journal", "show", "--data", str(played), "--table", "3", "--lang", "en")
    setup = re.split(r"\s{2,}", english.stdout.splitlines()[2].strip())
    assert setup[2:4] == ["referee", "match set up"]


@pytest.mark.unit
def test_every_kind_of_event_and_every_actor_has_a_name_in_every_language():
    import inspect

    from kiosk.i18n import LANGS, catalog
    from kiosk.table import session
    from kiosk.table.kinds import EventKind

    kinds = set(EventKind)
    actors = set(re.findall(r'_record\("([\w:]+)"', inspect.getsource(session))) | {
        "referee", "referee:key"}
    assert len(kinds) > 25 and {"scorer", "system", "table"} <= actors
    for lang in LANGS:
        words = catalog(lang)
        assert {f"eventlog.kind.{k}" for k in kinds} <= set(words), lang
        assert {f"eventlog.actor.{a}" for a in actors} <= set(words), lang
        assert "eventlog.actor.seat" in words


# -- the scorer met by bytes that are no HTTP request ----------------------------------------

def exchange(port: int, request: bytes) -> bytes:
    """`request` sent over TLS as a client that trusts the scorer would, and its whole answer."""
    import socket
    import ssl

    context = ssl._create_unverified_context()
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw, \
            context.wrap_socket(raw) as tls:
        tls.sendall(request)
        answer = b""
        while chunk := tls.recv(65536):
            answer += chunk
            if b"\r\n\r\n" in answer and b"upgrade" in request.lower():
                break  # (a plain answer keeps the connection open)
    return answer


@pytest.mark.process
def test_a_request_that_is_no_http_is_answered_and_logged_in_chinese(tmp_path):
    import time

    from .helpers import ScorerProcess

    data = tmp_path / "scorer"
    with ScorerProcess(data) as scorer:
        answer = exchange(scorer.port, b"GARBAGE \x00\x01 nonsense\r\n\r\n")
        upgraded = exchange(scorer.port, b"GET /api/standings HTTP/1.1\r\nHost: x\r\n"
                                         b"Connection: upgrade\r\nUpgrade: h2c\r\n\r\n")
        deadline = time.monotonic() + 10
        while "协议升级" not in (data / "scorer.log").read_text("utf-8") and \
                time.monotonic() < deadline:
            time.sleep(0.1)
    head, body = answer.split(b"\r\n\r\n", 1)
    assert head.startswith(b"HTTP/1.1 400 ")
    assert body.decode("utf-8") == "请求的格式不对。"
    assert f"content-length: {len(body)}".encode() in head.lower()
    assert upgraded.startswith(b"HTTP/1.1 200 ")  # answered as a plain request
    said = (data / "scorer.log").read_text("utf-8").splitlines()[-2:]
    assert said == [
        "注意:       收到一个不是 HTTP 请求的连接：已回复“请求的格式不对”并关闭（若不断出现，"
        "请查看是哪台设备在连接记分台）",
        "注意:       收到一个记分台不支持的协议升级请求（例如 WebSocket）：已按普通请求处理"]
    assert all(chinese(line, "HTTP", "WebSocket") for line in said)


# -- the sweep: files and values a person gets wrong ------------------------------------------

@pytest.mark.unit
def test_a_record_file_that_cannot_be_read_says_why_in_chinese(tmp_path):
    done = run("replay", str(tmp_path / "none.json"))
    assert done.returncode == 2
    assert done.stderr == (f"kiosk replay：比赛记录：无法读取{tmp_path}/none.json："
                           "没有这个文件或目录\n")
    folder = run("replay", str(tmp_path))
    assert folder.stderr == f"kiosk replay：比赛记录：无法读取{tmp_path}：这是一个目录，不是文件\n"


@pytest.mark.unit
@pytest.mark.parametrize("command", [("scorer",), ("scorer", "admin", "list-teams")])
def test_a_scorer_data_directory_that_cannot_be_made_is_said_not_a_traceback(tmp_path,
                                                                            command):
    blocked = tmp_path / "file"
    blocked.write_text("")
    for data, reason in ((blocked, "这里已有一个同名的文件"),
                         (blocked / "below", "路径中有一段不是目录")):
        done = run(*command, "--data", str(data))
        assert done.returncode == 2, done.stderr
        assert done.stderr == f"kiosk scorer：无法在 {data} 存放记分台的数据：{reason}\n"


@pytest.fixture(scope="module")
def hall(tmp_path_factory):
    data = tmp_path_factory.mktemp("scorer")
    made = run("scorer", "admin", "--data", str(data), "event", "--name", "演示赛",
               "--ruleset", "xiamen-2015")
    assert made.returncode == 0, made.stderr
    return data


@pytest.mark.unit
@pytest.mark.parametrize("action, said", [
    (("teams", "{tmp}/none.csv", "--yes"), "teams：{tmp}/none.csv：没有这个文件或目录"),
    (("backup", "--to", "{tmp}/junk.sqlite/backups"), "backup：{tmp}/junk.sqlite/backups："),
    (("export", "--out", "{tmp}/none/results.csv"), "export：{tmp}/none/results.csv：没有这个文件"),
    (("import", "--table", "1", "--journal", "{tmp}/junk.sqlite"),
     "import：日志 junk.sqlite 已损坏"),
    (("clock", "extend"), "clock：请填写“分钟”。"),
])
def test_the_head_referees_commands_say_a_bad_file_or_value_in_chinese(hall, tmp_path, action,
                                                                     said):
    (tmp_path / "junk.sqlite").write_bytes(b"this is not a journal" * 100)
    action = tuple(word.format(tmp=tmp_path) for word in action)
    done = run("scorer", "admin", "--data", str(hall), *action)
    assert done.returncode == 2
    assert done.stderr.startswith(f"kiosk scorer admin {said.format(tmp=tmp_path)}"), done.stderr
    assert no_developer_words(done.stderr) and "admin." not in done.stderr


# -- the fleet's commands ----------------------------------------------------------------------

@pytest.mark.unit
def test_the_first_boot_says_what_it_did_in_chinese(tmp_path):
    from .test_fleet_boot import CARD

    boot = tmp_path / "boot/firmware"
    boot.mkdir(parents=True)
    (boot / "kiosk.toml").write_text(CARD.replace("{key}", "ab" * 32))
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc/hosts").write_text("127.0.0.1\tlocalhost\n")
    done = run("fleet", "firstboot", "--root", str(tmp_path))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == ("kiosk.toml：第 7 桌，记分台 http://192.168.8.2:8080：设置已写入 "
                        "/etc/kiosk/kiosk.env，启动分区上的 kiosk.toml 已删除")
    assert "已应用 /etc/hostname" in lines
    assert all(chinese(line, "http") for line in lines)
    (boot / "kiosk.toml").write_text('table = "x"\n')
    refused = run("fleet", "firstboot", "--root", str(tmp_path))
    assert refused.returncode == 2 and refused.stderr.startswith("kiosk fleet firstboot：")


@pytest.mark.process
def test_a_pending_pairing_that_fails_says_why_and_that_it_waits(tmp_path):
    (tmp_path / "pair-code").write_text("123456\n")
    down = f"https://127.0.0.1:{free_port()}"
    done = run("fleet", "pair-pending", "--data", str(tmp_path), "--table", "3",
               "--scorer", down)
    assert done.returncode == 0  # the kiosk starts anyway, offline
    assert done.stderr == (f"kiosk fleet pair-pending：第 3 桌未能配对：记分台 {down} 没有应答。"
                           "请检查记分台的地址是否正确，以及记分台是否正在运行，然后再试"
                           "（配对码保留：平板运行时会一直重试，直到记分台应答）\n")


@pytest.mark.unit
def test_backups_keys_and_bundles_are_said_in_chinese(tmp_path):
    pruned = run("fleet", "prune-backups", "--dir", str(tmp_path))
    assert pruned.stdout == f"已从 {tmp_path} 删除 0 份旧备份\n"
    keys = run("fleet", "keygen", "--out", str(tmp_path / "keys"))
    assert keys.stdout.splitlines() == [
        f"{tmp_path}/keys/update-key.pem：私钥（妥善保管，绝不放到平板上）",
        f"{tmp_path}/keys/update-key.pub：公钥（交给 provision-kiosk.sh --update-key，"
        "或放进系统镜像）"]
    junk = tmp_path / "junk.bundle"
    junk.write_bytes(b"not a bundle" * 100)
    pub, pem = tmp_path / "keys/update-key.pub", tmp_path / "keys/update-key.pem"
    damaged = "拒绝更新包：文件损坏或不完整（{}）。请重新获取或复制。"
    (tmp_path / "scorer").mkdir()
    wheel = tmp_path / "kiosk80-1.0-py3-none-any.whl"
    wheel.write_bytes(b"")
    (tmp_path / "scorer/scorer.sqlite").write_bytes(b"")  # the scorer's data, as far as it looks
    for args, said in [
        (("prune-backups", "--dir", f"{tmp_path}/none"), f"{tmp_path}/none：没有这个文件或目录"),
        (("keygen", "--out", f"{junk}/keys"), f"{junk}/keys：路径中有一段不是目录"),
        (("bundle", "--version", "1.0", "--wheel", f"{tmp_path}/none.whl", "--wheelhouse",
          str(tmp_path), "--key", str(pem), "--out", f"{tmp_path}/b.bundle"),
         f"{tmp_path}/none.whl：没有这个文件或目录"),
        (("bundle", "--version", "1.0", "--wheel", str(wheel), "--wheelhouse", str(tmp_path),
          "--key", str(pub), "--out", f"{tmp_path}/b.bundle"),
         "更新包：这不是本系统的 Ed25519 更新密钥（这不是 Ed25519 私钥）。"),
        (("bundle", "--version", "0.3.0", "--wheel", str(wheel), "--wheelhouse", str(tmp_path),
          "--key", str(pem), "--out", f"{tmp_path}/b.bundle"),
         f"无法制作更新包：--version 0.3.0 与项目的 wheel {wheel.name} 的版本不一致。"
         "请给出这个 wheel 的版本，或给出版本 0.3.0 的 wheel。"),
        (("publish", "--data", f"{tmp_path}/none", str(junk)),
         f"{tmp_path}/none 不是记分台的数据目录（里面没有 scorer.sqlite）：请给出记分台使用的目录，"
         "例如 --data /var/lib/kiosk-scorer。没有做任何更改。"),
        (("publish", "--data", f"{tmp_path}/scorer", f"{tmp_path}/none.bundle"),
         f"{tmp_path}/none.bundle：没有这个文件或目录"),
        (("publish", "--data", f"{tmp_path}/scorer", str(junk)),
         damaged.format("不是 kiosk fleet bundle 制作的更新包")),
        (("publish", "--data", f"{tmp_path}/scorer", "--key", str(pub), str(junk)),
         damaged.format("不是完整的 tar 归档")),
        (("publish", "--data", f"{tmp_path}/scorer", "--key", str(pem), str(junk)),
         "更新包：这不是本系统的 Ed25519 更新密钥（这不是 Ed25519 公钥）。"),
        (("update", "--data", str(tmp_path), "--key", f"{tmp_path}/none.pub", "--bundle",
          str(junk)), f"{tmp_path}/none.pub：没有这个文件或目录"),
        (("update", "--data", str(tmp_path), "--key", str(pub), "--bundle",
          f"{tmp_path}/none.bundle"), f"{tmp_path}/none.bundle：没有这个文件或目录"),
    ]:
        done = run("fleet", *args)
        assert (done.returncode, done.stderr) == (2, f"kiosk fleet：{said}\n"), args
    assert not (tmp_path / "none").exists()  # a mistyped --data is not made


@pytest.mark.process
def test_an_update_that_cannot_be_had_says_why_in_chinese(tmp_path):
    keys = run("fleet", "keygen", "--out", str(tmp_path / "keys"))
    assert keys.returncode == 0
    junk = tmp_path / "junk.bundle"
    junk.write_bytes(b"not a bundle" * 100)
    update = ("fleet", "update", "--data", str(tmp_path), "--app-dir", str(tmp_path / "app"),
              "--key", str(tmp_path / "keys/update-key.pub"), "--table", "1")
    offline = run(*update, "--scorer", f"https://127.0.0.1:{free_port()}")
    assert (offline.returncode, offline.stdout) == (0, "现在无法从记分台获取更新：记分台没有应答。"
                                                       "下次再试\n")
    refused = run(*update, "--bundle", str(junk))
    assert refused.returncode == 1
    assert refused.stdout == ("拒绝安装这个更新包：拒绝更新包：文件损坏或不完整（不是完整的 tar "
                              "归档）。请重新获取或复制。\n")  # no version "?" it does not know


@pytest.mark.process
def test_a_scorer_that_cannot_listen_says_why_in_chinese_and_gives_no_address(tmp_path):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        busy = run("scorer", "--data", str(tmp_path), "--port", str(port), "--no-mdns")
    assert busy.returncode == 3
    assert "大厅页面" not in busy.stdout  # no address is given out that does not answer
    assert busy.stderr.splitlines()[-1] == (
        f"错误:       记分台无法在 127.0.0.1 的端口 {port} 上监听：端口已被占用（另一个记分台或程序"
        "正在使用它）。请停止它，或用 --port 换一个端口")
    unknown = run("scorer", "--data", str(tmp_path), "--host", "nowhere.invalid", "--no-mdns")
    assert unknown.stderr.splitlines()[-1] == ("错误:       记分台找不到地址 nowhere.invalid："
                                               "请检查 --host")


@pytest.mark.unit
def test_a_slip_or_demo_that_cannot_write_where_it_is_told_says_why(played, tmp_path):
    (tmp_path / "file").write_text("")
    for args, said in [
        (("slip", "--data", str(played), "--table", "3", "--out", str(tmp_path)),
         f"kiosk slip：{tmp_path}：这是一个目录，不是文件"),
        (("slip", "--data", str(played), "--table", "3", "--out", f"{tmp_path}/none/slip.txt"),
         f"kiosk slip：{tmp_path}/none/slip.txt：没有这个文件或目录"),
        (("demo", "--data", f"{tmp_path}/file", "--port", "0"),
         f"kiosk demo：{tmp_path}/file：这里已有一个同名的文件"),
    ]:
        done = run(*args)
        assert (done.returncode, done.stderr) == (2, said + "\n"), args


@pytest.mark.unit
@pytest.mark.parametrize("command", [("scorer", "--no-mdns"), ("scorer", "admin", "standings")])
def test_a_damaged_scorer_store_says_how_to_restore_it_not_to_call_the_head_referee(tmp_path,
                                                                                    command):
    store = tmp_path / "scorer.sqlite"
    store.write_bytes(b"this is not a database" * 300)
    done = run(*command[:1], "--data", str(tmp_path), *command[1:])
    assert done.returncode == 2
    assert done.stderr == (f"kiosk scorer：记分台的数据文件 {store} 已损坏：请把最近的一份备份"
                           f"（部署时在 backups 目录里）复制为 {store}，再启动记分台\n")


@pytest.mark.process
def test_ctrl_c_stops_a_command_with_one_line_not_a_traceback(tmp_path):
    import signal
    import subprocess
    import sys
    import time

    from .helpers import ROOT, ctrl_c_reaches

    env = {k: v for k, v in os.environ.items() if k not in ("KIOSK_LANG",)}
    child = subprocess.Popen(
        [sys.executable, "-m", "kiosk.cli.main", "simulate", "--data", str(tmp_path),
         "--table", "1", "--ruleset", "xiamen-2015"],  # (in real time: it runs for an hour)
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        preexec_fn=ctrl_c_reaches)
    deadline = time.monotonic() + 30
    while not (tmp_path / "table-1.sqlite").exists() and time.monotonic() < deadline:
        time.sleep(0.1)  # (polling to a deadline: the command is running once it exists)
    child.send_signal(signal.SIGINT)
    # Status 130 as a shell reports it: the command's own exit 130, or (seen about once in
    # fifteen runs on a loaded machine, after the line was said) the end by SIGINT itself,
    # which a shell reports as 130 too.
    assert child.wait(30) in (130, -signal.SIGINT)
    assert child.stderr.read() == "kiosk simulate：已中断（Ctrl-C）\n"
    child.stderr.close()


@pytest.mark.process
def test_a_gpio_that_cannot_open_says_which_part_and_why_in_chinese(tmp_path):
    """As on a machine whose GPIO lgpio cannot open (this one is no Pi): `kiosk table` stops
    with status 3, naming the first part and why, with no library exception's name."""
    env = {k: v for k, v in os.environ.items() if k not in ("KIOSK_LANG", "DISPLAY")}
    env["GPIOZERO_PIN_FACTORY"] = "lgpio"
    from .helpers import kiosk as program

    done = program("table", "--data", str(tmp_path), "--size", "800x480", env=env)
    assert done.returncode == 3
    said = [line for line in done.stderr.splitlines() if line.startswith("kiosk")]
    assert said == ["kiosk table：无法打开座位按钮和指示灯（北座按钮（seat.N.button），GPIO5："
                    "GPIO 库认不出这块主板是哪种树莓派）。没有它们，平板不会启动：请检查接线板，"
                    "并运行 `kiosk hw selftest`。"]


@pytest.mark.process
def test_a_scorer_that_cannot_announce_itself_says_what_to_check_not_a_traceback(tmp_path):
    elsewhere = "198.51.100.7"  # (TEST-NET-2: never an address of this machine)
    done = run("scorer", "--data", str(tmp_path), "--port", str(free_port()), "--advertise",
               elsewhere)
    assert done.returncode == 2
    assert done.stderr == (f"kiosk scorer：记分台无法在局域网上广播自己（mDNS）：本机没有地址为 "
                           f"{elsewhere} 的网卡，或它不能组播。请检查 --advertise；或用 --no-mdns "
                           "不广播，各平板用 --scorer URL 连接\n")


@pytest.mark.unit
def test_a_journal_whose_ruleset_is_not_here_says_which_and_what_to_do(tmp_path):
    from .helpers import ROOT

    house = tmp_path / "house"
    house.mkdir()
    xiamen = (ROOT / "kiosk/rules/data/xiamen-2015.toml").read_text("utf-8")
    (house / "h.toml").write_text(xiamen.replace('id = "xiamen-2015"', 'id = "house-1"', 1),
                                  encoding="utf-8")
    played = run("--rules-dir", str(house), "simulate", "--data", str(tmp_path), "--table", "2",
                 "--ruleset", "house-1", "--hands", "1", "--speed", "1e9")
    assert played.returncode == 0, played.stderr
    missing = run("journal", "show", "--data", str(tmp_path), "--table", "2")
    assert (missing.returncode, missing.stderr) == (2, (
        "kiosk journal：第 2 桌的比赛用的是规则 house-1，本机没有这套规则：请用 --rules-dir "
        "加入它的规则文件\n"))
    other = tmp_path / "other"
    other.mkdir()
    (other / "h.toml").write_text((house / "h.toml").read_text("utf-8") + "\n# another copy\n",
                                  encoding="utf-8")
    changed = run("--rules-dir", str(other), "slip", "--data", str(tmp_path), "--table", "2")
    assert (changed.returncode, changed.stderr) == (2, (
        "kiosk slip：第 2 桌的比赛用的是另一份 house-1（与本机这份的校验值不同）：请用 --rules-dir "
        "加入平板上的那份规则文件\n"))


@pytest.mark.unit
@pytest.mark.parametrize("command", ["simulate", "demo"])
@pytest.mark.parametrize("speed", ["0", "-5", "nan"])
def test_a_speed_that_is_no_speed_is_said_not_a_division_by_zero(tmp_path, command, speed):
    args = ("--table", "1", "--ruleset", "xiamen-2015") if command == "simulate" else (
        "--port", "0")
    done = run(command, "--data", str(tmp_path), "--speed", speed, *args)
    assert (done.returncode, done.stderr) == (2, (
        f"kiosk {command}：--speed {speed}：请给出大于 0 的倍数（例如 60；1e9 表示完全不等）\n"))


@pytest.mark.process
def test_the_selftest_says_mock_pins_in_words_not_a_class_name():
    from .helpers import kiosk as program

    env = {k: v for k, v in os.environ.items() if k != "KIOSK_LANG"}
    env["GPIOZERO_PIN_FACTORY"] = "mock"  # (the self-test then presses and reads back itself)
    done = program("hw", "selftest", "--no-window", "--press-timeout", "2", env=env)
    assert "· GPIO 通过 模拟引脚（这台机器没有 GPIO：指示灯、蜂鸣器和按钮都是模拟的）" in \
        done.stdout.splitlines(), done.stdout
    assert "MockFactory" not in done.stdout


@pytest.mark.unit
def test_journal_show_names_an_overrun_by_its_phase():
    """A bury's overrun was listed as 出牌超时, as a move's is (a referee's review)."""
    from kiosk.cli.table_cmd import EventWords

    said = EventWords("zh-Hans")
    assert said.kind("time-overrun", {"phase": "bury", "seat": "N"}) == "扣底超时"
    assert said.kind("time-overrun", {"phase": "play", "seat": "N"}) == "出牌超时"
    assert said.kind("press", {"phase": "bury"}) == "按键"  # (a phase names only an overrun)
    assert EventWords("en").kind("time-overrun", {"phase": "bury"}) == "bury over time"
