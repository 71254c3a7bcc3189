"""drill — practise Triton and torch.compile for GPU-kernel interviews.

Thin click commands; each calls functions in grader/ or coach/. Every command's and option's `--help` text is in
texts.yaml (`help`), in English and Chinese: coach/help_zh.py's Command and Group read it.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import click

import drills
from coach import actions
from coach.errors import DrillError, usage_error
from coach.help_zh import Command, Group
from grader.core import catalog
from grader.reporting.i18n import resolve_lang

DEVICE = click.Choice(["auto", "cuda", "cpu"])
LANG = click.Choice(["en", "zh"])


def complete_drill(ctx, param, incomplete):
    return [n for n in drills.names() if n.startswith(incomplete)]


# Eager: parsed first, so that an error raised while parsing the others (a drill name) is said in this language
# and, under --json, as the JSON error object.
def lang_to_env(ctx, param, value):
    """--lang also reaches drill's own processes (a grade's child, its timing lines) and the state file's warnings,
    as DRILL_LANG, for as long as the command runs."""
    if value:
        before = os.environ.get("DRILL_LANG")
        os.environ["DRILL_LANG"] = value
        ctx.call_on_close(lambda: os.environ.__setitem__("DRILL_LANG", before) if before is not None
                          else os.environ.pop("DRILL_LANG", None))
    return value


lang_option = click.option("--lang", type=LANG, default=None, is_eager=True, callback=lang_to_env)


def json_option():
    return click.option("--json", "as_json", is_flag=True, is_eager=True)


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="drill", message="%(prog)s %(version)s")
@click.option("--lang", type=LANG, default=None, is_eager=True, expose_value=False, callback=lang_to_env)
def main():
    pass


@main.command("list", cls=Command)
@lang_option
def list_cmd(lang):
    actions.list_drills(resolve_lang(lang))


@main.command("next", cls=Command)
@lang_option
def next_cmd(lang):
    sys.exit(actions.next_drill(resolve_lang(lang)))


@main.command(cls=Command)
@click.argument("name", shell_complete=complete_drill)
@click.argument("path", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--force", is_flag=True)
@click.option("--bug", is_flag=True)
@lang_option
def start(name, path, force, bug, lang):
    sys.exit(actions.start(name, path, force, resolve_lang(lang), bug=bug))


@main.command(cls=Command)
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--drill", "drill_name", shell_complete=complete_drill)
@click.option("--device", type=DEVICE, default="auto", show_default=True)
@json_option()
@click.option("--format", "fmt", type=click.Choice(["report", "gcc"]), default="report", show_default=True)
@click.option("--show-fix", is_flag=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=None)
@click.option("--watch", is_flag=True)
@lang_option
def grade(file, drill_name, device, as_json, fmt, show_fix, seed, timeout, watch, lang):
    lang = resolve_lang(lang)

    def once():
        return actions.grade(file, drill_name, device, as_json, seed, timeout, lang, fmt=fmt, show_fix=show_fix)
    if watch:
        from coach.watch import watch_cli
        sys.exit(watch_cli(file, once, lang))
    sys.exit(once())


@main.command(cls=Command)
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--drill", "drill_name", shell_complete=complete_drill)
@click.option("--sizes", default=None)
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False, path_type=Path), default=None)
@json_option()
@lang_option
def bench(file, drill_name, sizes, plot_path, as_json, lang):
    from coach import bench as bench_action
    sys.exit(bench_action.run(file, drill_name, sizes, plot_path, as_json, resolve_lang(lang)))


@main.command(cls=Command)
@click.argument("name", shell_complete=complete_drill)
@click.option("--reset", is_flag=True)
@lang_option
def hint(name, reset, lang):
    sys.exit(actions.hint(name, reset, resolve_lang(lang)))


@main.command(cls=Command)
@click.argument("name", shell_complete=complete_drill)
@lang_option
def solution(name, lang):
    sys.exit(actions.solution(name, resolve_lang(lang)))


def complete_drill_or_checkpoint(ctx, param, incomplete):
    from grader.reporting.texts import checkpoints as checkpoint_table
    return [n for n in list(drills.names()) + list(checkpoint_table()) if n.startswith(incomplete)]


@main.command(cls=Command)
@click.argument("name", required=False, shell_complete=complete_drill_or_checkpoint)
@click.option("--answer", default=None)
@json_option()
@lang_option
def checkpoints(name, answer, as_json, lang):
    lang = resolve_lang(lang)
    sys.exit(actions.checkpoints(name, answer, lang, as_json))


@main.command(cls=Command)
@click.option("--minutes", type=click.FloatRange(min=0.1), default=None)
@click.option("--drills", "n_drills", type=click.IntRange(min=1), default=1, show_default=True)
@click.option("--questions", type=click.IntRange(min=0), default=2, show_default=True)
@click.option("--oral-seconds", type=click.FloatRange(min=5), default=120, show_default=True)
@click.option("--seed", type=int, default=None)
@click.option("--dir", "folder", type=click.Path(file_okay=False, path_type=Path), default=None)
@click.option("--device", type=DEVICE, default="auto", show_default=True)
@click.option("--kernel-questions", type=click.IntRange(min=0), default=1, show_default=True)
@click.option("--reviews", type=click.IntRange(min=0), default=1, show_default=True)
@click.option("--review-seconds", type=click.FloatRange(min=5), default=300, show_default=True)
@lang_option
def mock(minutes, n_drills, questions, oral_seconds, seed, folder, device, kernel_questions, reviews, review_seconds,
         lang):
    from coach.mock import tui as mock_tui
    sys.exit(mock_tui.interview(minutes, n_drills, questions, seed, folder, oral_seconds, device, resolve_lang(lang),
                                kernel_questions=kernel_questions, reviews=reviews,
                                review_seconds=review_seconds))


def complete_slow_drill(ctx, param, incomplete):
    from coach.bughunt.slow import drills_with_slow
    return [n for n in drills_with_slow() if n.startswith(incomplete)]


@main.command("why-slow", cls=Command)
@click.argument("name", shell_complete=complete_slow_drill)
@click.option("--answer", "slow_answer", default=None)
@click.option("--device", type=DEVICE, default="auto", show_default=True)
@click.option("--seed", type=int, default=None)
@lang_option
def why_slow(name, slow_answer, device, seed, lang):
    from coach.bughunt import slow
    sys.exit(slow.run(name, slow_answer, device, resolve_lang(lang), seed=seed))


@main.command(cls=Command)
@lang_option
def progress(lang):
    from coach.progress import table as progress_mod
    sys.exit(progress_mod.show(resolve_lang(lang)))


@main.command(cls=Command)
@click.argument("name", shell_complete=complete_drill)
@click.option("--file", "file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--raw", is_flag=True)
@click.option("--save", type=click.Path(file_okay=False, path_type=Path))
@click.option("--quiz", is_flag=True)
@click.option("--answers", default=None)
@click.option("--device", type=DEVICE, default="auto", show_default=True)
@click.option("--backend", type=click.Choice(["auto", "triton", "cpp"]), default="auto", show_default=True)
@click.option("--cold", is_flag=True)
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=None)
@lang_option
def inductor(name, file, raw, save, quiz, answers, device, backend, cold, timeout, lang):
    from coach.inductor import view as inductor_view
    parsed = None if answers is None else [a.strip() for a in answers.split(",")]
    quiz = quiz or parsed is not None  # answers are answers to the quiz
    sys.exit(inductor_view.command(name, file, raw, save, quiz, resolve_lang(lang), device=device, backend=backend,
                                   cold=cold, timeout=timeout, answers=parsed))


def run() -> None:
    """The `drill` entry point: click in non-standalone mode, so that Ctrl-C exits 130 (click would say
    "Aborted!" and exit 1) and SIGTERM / SIGHUP end every child process group and scratch folder, then exit
    128 + the signal's number."""
    from grader.run.proc import Terminated, end_all, raise_on_termination

    raise_on_termination()
    try:
        code = main.main(standalone_mode=False)
    except (KeyboardInterrupt, click.exceptions.Abort):
        end_all()
        click.echo("", err=True)
        sys.exit(130)
    except Terminated as t:
        end_all()
        sys.exit(128 + t.signum)
    except click.exceptions.UsageError as e:  # click's own (an unknown option): one line, and JSON under --json
        err = usage_error(e)
        err.show()
        sys.exit(err.exit_code)
    except click.ClickException as e:
        e.show()
        sys.exit(e.exit_code)
    except OSError as e:  # a file or folder the learner named that cannot be used: one line, exit 2
        err = DrillError(catalog.both("usage.cannot_use", what=e.filename or "", why=e.strerror or e))
        err.show()
        sys.exit(err.exit_code)
    except Exception as e:  # drill's own bug outside a grade: said as one, exit 2
        if os.environ.get("DRILL_DEBUG"):
            raise
        import traceback
        last = traceback.extract_tb(e.__traceback__)[-1]
        err = DrillError(catalog.both("usage.internal_command", type=type(e).__name__,
                                      where=f"{Path(last.filename).name}:{last.lineno}", message=e))
        err.show()
        sys.exit(err.exit_code)
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    run()
