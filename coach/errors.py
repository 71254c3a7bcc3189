"""Errors a learner can reach: one line in their language, a meaningful exit code, and under `--json` the same
object on stdout for every command: {"error": "...", "passed": false, "exit_code": N}.

`DrillError` is a click exception, so it works raised anywhere under a click command (a parameter callback, an
action) and in click's standalone mode (tests' CliRunner) as in `cli.run()`. Click's own usage errors (an unknown
option, a missing argument) are shown the same way by `cli.run()` through `usage_error`.
"""
from __future__ import annotations

import json
import sys

import click

from grader.core import catalog

EXIT_FAIL, EXIT_USAGE = 1, 2


def argv_lang() -> str:
    """The language asked for on the command line (`--lang zh` / `--lang=zh`), else $DRILL_LANG / $LANG: for
    errors raised before click has parsed --lang."""
    from grader.reporting.i18n import resolve_lang

    args = sys.argv[1:]
    for i, a in enumerate(args):
        if a == "--lang" and i + 1 < len(args) and args[i + 1] in ("en", "zh"):
            return args[i + 1]
        if a.startswith("--lang=") and a[7:] in ("en", "zh"):
            return a[7:]
    return resolve_lang(None)


def argv_json() -> bool:
    return "--json" in sys.argv[1:]


def json_error(message: str, code: int) -> str:
    return json.dumps({"error": message, "passed": False, "exit_code": code}, ensure_ascii=False)


class DrillError(click.ClickException):
    """texts: {"en": ..., "zh": ...} (or one string). lang / as_json: None reads them from the command line."""

    def __init__(self, texts, code: int = EXIT_USAGE, lang: str | None = None, as_json: bool | None = None):
        self.texts = texts if isinstance(texts, dict) else {"en": texts, "zh": texts}
        super().__init__(self.texts["en"])
        self.exit_code = code
        self.lang = lang
        self.as_json = as_json

    def text(self, lang: str | None = None) -> str:
        lang = lang or self.lang or argv_lang()
        return self.texts.get(lang) or self.texts["en"]

    def show(self, file=None) -> None:
        text = self.text()
        as_json = argv_json() if self.as_json is None else self.as_json
        if as_json:  # a machine reading stdout gets one object; a person reading stderr the line
            click.echo(json_error(text, self.exit_code))
        prefix = "drill：" if (self.lang or argv_lang()) == "zh" else "drill: "
        click.echo(text if text.startswith("drill") else prefix + text, err=True)


CLICK_WORDS = {"No such option": "没有这个选项", "Missing argument": "缺少参数", "Missing option": "缺少选项",
               "Invalid value for": "取值无效：", "No such command": "没有这个命令", "Got unexpected extra argument":
               "多余的参数", "Did you mean": "你是不是想输入"}


def usage_error(e: click.exceptions.UsageError, args: list | None = None) -> DrillError:
    """Click's multi-line usage error as one line: the message and which --help to read. args: the command line
    being parsed (for --json and --lang), else sys.argv."""
    message = e.format_message().replace("\n", " ")
    command = e.ctx.command_path if e.ctx is not None else "drill"
    lang = argv_lang()
    as_json = None
    if args is not None:
        args = list(args)
        as_json = "--json" in args
        for i, a in enumerate(args):
            if a == "--lang" and i + 1 < len(args) and args[i + 1] in ("en", "zh"):
                lang = args[i + 1]
    zh = message
    for en_words, zh_words in CLICK_WORDS.items():
        zh = zh.replace(en_words, zh_words)
    return DrillError({"en": catalog.text("usage.click_hint", "en", message=message, command=command),
                       "zh": catalog.text("usage.click_hint", "zh", message=zh, command=command)}, code=e.exit_code,
                      lang=lang, as_json=as_json)


def show_os_error(e: OSError) -> DrillError:
    where = f" {e.filename}" if getattr(e, "filename", None) else ""
    return DrillError(catalog.both("usage.cannot_use_bare", where=where, why=e.strerror or e), code=EXIT_USAGE)


