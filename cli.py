"""drill — practise Triton and torch.compile for GPU-kernel interviews.

Thin click commands; each calls functions in grader/ or coach/.
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
from grader.reporting.i18n import resolve_lang

DEVICE = click.Choice(["auto", "cuda", "cpu"])
LANG = click.Choice(["en", "zh"])


def complete_drill(ctx, param, incomplete):
    return [n for n in drills.names() if n.startswith(incomplete)]


# Eager: parsed first, so that an error raised while parsing the others (a drill name) is said in this language
# and, under --json, as the JSON error object.
lang_option = click.option("--lang", type=LANG, default=None, is_eager=True,
                           help="Language: en or zh (default: $DRILL_LANG, then $LANG).")


def json_option(help_text: str):
    return click.option("--json", "as_json", is_flag=True, is_eager=True, help=help_text)


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="drill", message="%(prog)s %(version)s")
@click.option("--lang", type=LANG, default=None, is_eager=True, expose_value=False,
              callback=lambda ctx, param, value: value and os.environ.__setitem__("DRILL_LANG", value),
              help="Language of every command: en or zh (default: $DRILL_LANG, then $LANG).")
def main():
    """Practise Triton and torch.compile for GPU-kernel interviews.

    \b
    drill list                     the drills in the order to learn them, with your status
    drill next                     the next drill to do, and the command that starts it
    drill start mask               write the mask drill's skeleton to ./mask.py
    drill start mask --bug         a complete kernel with one planted mistake: find it
    drill grade mask.py            grade it (CUDA if present, else Triton's interpreter)
    drill hint mask                one hint at a time
    drill solution mask            the reference solution
    drill checkpoints mask         the spoken-answer checkpoints of a drill
    drill checkpoints why-mask --answer "..."   score a typed answer
    drill mock --minutes 15        a timed mock interview, then a scorecard
    drill why-slow fuse            a correct but slow kernel: why is it slow?
    drill progress                 attempts, grade times, what is due for review
    drill inductor fuse            torch.compile's kernel beside yours
    drill bench my_fuse.py         (GPU) size sweep vs eager and torch.compile
    """


@main.command("list", cls=Command)
@lang_option
def list_cmd(lang):
    """List the drills in the order to learn them, with your attempts and passes."""
    actions.list_drills(resolve_lang(lang))


@main.command("next", cls=Command)
@lang_option
def next_cmd(lang):
    """The first drill not yet passed, in the guide's order, and the command that starts it."""
    sys.exit(actions.next_drill(resolve_lang(lang)))


@main.command(cls=Command)
@click.argument("name", shell_complete=complete_drill)
@click.argument("path", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--force", is_flag=True, help="Overwrite PATH, keeping the old file as PATH.bak (or .bak.N).")
@click.option("--bug", is_flag=True, help="Instead of the skeleton: a complete kernel with one planted mistake to find "
                                         "and fix (code review practice).")
@lang_option
def start(name, path, force, bug, lang):
    """Write drill NAME's skeleton to PATH (default ./<name>.py). Never overwrites without --force."""
    sys.exit(actions.start(name, path, force, resolve_lang(lang), bug=bug))


@main.command(cls=Command)
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--drill", "drill_name", shell_complete=complete_drill, help="Grade as this drill (default: the file's `# drill:` line).")
@click.option("--device", type=DEVICE, default="auto", show_default=True, help="Where the kernel runs.")
@json_option("Print one JSON object instead of the report.")
@click.option("--format", "fmt", type=click.Choice(["report", "gcc"]), default="report", show_default=True,
              help="gcc: `file:line:col: error: message` lines, for vim's quickfix and VS Code's problem matchers.")
@click.option("--show-fix", is_flag=True, help="Always show the code of the fix (by default it comes with the last "
                                               "hint or a second failure of the same kind).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed for the generated inputs.")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=None, help="Seconds before the grade is killed (default: the drill's).")
@click.option("--watch", is_flag=True, help="Grade again on every save (polls the file's modification time) or on "
                                            "Enter; Ctrl-C stops (exit code 130; the last grade's result is said).")
@lang_option
def grade(file, drill_name, device, as_json, fmt, show_fix, seed, timeout, watch, lang):
    """Grade FILE against eager PyTorch. Exit code: 0 pass, 1 fail, 2 usage or unreadable file."""
    lang = resolve_lang(lang)

    def once():
        return actions.grade(file, drill_name, device, as_json, seed, timeout, lang, fmt=fmt, show_fix=show_fix)
    if watch:
        from coach.watch import watch_cli
        sys.exit(watch_cli(file, once, lang))
    sys.exit(once())


@main.command(cls=Command)
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--drill", "drill_name", shell_complete=complete_drill, help="Bench as this drill (default: the file's `# drill:` line).")
@click.option("--sizes", default=None, help="Sizes: 4096,65536 or 2^12..2^27; shapes for matmul, attention, softmax...: 1024x1024x1024,4096x4096x512 (default: the drill's sweep).")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False, path_type=Path), default=None, help="Write a GB/s-vs-size plot, TFLOPS for matmul and attention (needs matplotlib).")
@json_option("Print the sweep as JSON.")
@lang_option
def bench(file, drill_name, sizes, plot_path, as_json, lang):
    """Size sweep of FILE's kernel vs eager and torch.compile: GB/s, or TFLOPS for matmul and attention (needs a GPU; exit 2 without one)."""
    from coach import bench as bench_action
    sys.exit(bench_action.run(file, drill_name, sizes, plot_path, as_json, resolve_lang(lang)))


@main.command(cls=Command)
@click.argument("name", shell_complete=complete_drill)
@click.option("--reset", is_flag=True, help="Start the hints of NAME again from the first.")
@lang_option
def hint(name, reset, lang):
    """Show the next hint of drill NAME (one at a time)."""
    sys.exit(actions.hint(name, reset, resolve_lang(lang)))


@main.command(cls=Command)
@click.argument("name", shell_complete=complete_drill)
@lang_option
def solution(name, lang):
    """Print the reference solution of drill NAME (its `# drill:` line names NAME: save it and grade it)."""
    sys.exit(actions.solution(name, resolve_lang(lang)))


def complete_drill_or_checkpoint(ctx, param, incomplete):
    from grader.reporting.texts import checkpoints as checkpoint_table
    return [n for n in list(drills.names()) + list(checkpoint_table()) if n.startswith(incomplete)]


@main.command(cls=Command)
@click.argument("name", required=False, shell_complete=complete_drill_or_checkpoint)
@click.option("--answer", default=None, help="Score this typed answer to checkpoint NAME ('-' reads stdin).")
@json_option("Print JSON (with --answer: id, passed, points, wrong_claims).")
@lang_option
def checkpoints(name, answer, as_json, lang):
    """Print the spoken-answer checkpoints (all, a drill's, or one by id): question, model answer, key points.

    \b
    drill checkpoints                      all of them
    drill checkpoints mask                 the mask drill's
    drill checkpoints why-mask --answer "the last tile runs past n ..." [--json]
    With --answer: exit 0 when the answer passes, 1 when not, 2 for an unknown id.
    """
    lang = resolve_lang(lang)
    sys.exit(actions.checkpoints(name, answer, lang, as_json))


@main.command(cls=Command)
@click.option("--minutes", type=click.FloatRange(min=0.1), default=None,
              help="The coding clock, in minutes (default 10; 25-40 when a tensor-core drill is drawn). The oral "
                   "round has its own clock per question.")
@click.option("--drills", "n_drills", type=click.IntRange(min=1), default=1, show_default=True,
              help="How many drills (weak or never tried first).")
@click.option("--questions", type=click.IntRange(min=0), default=2, show_default=True,
              help="How many oral questions (due for review first).")
@click.option("--oral-seconds", type=click.FloatRange(min=5), default=120, show_default=True,
              help="The clock of each oral question, in seconds.")
@click.option("--seed", type=int, default=None, help="Seed for picking among equally weak drills and questions.")
@click.option("--dir", "folder", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="A new (or empty) folder for this interview's files (default: ./mock-DATE-TIME).")
@click.option("--device", type=DEVICE, default="auto", show_default=True, help="Where the kernels run.")
@click.option("--kernel-questions", type=click.IntRange(min=0), default=1, show_default=True,
              help="Questions about your own passing kernel (programs, bytes, mask lanes), checked against its grade.")
@click.option("--reviews", type=click.IntRange(min=0), default=1, show_default=True,
              help="Code-review questions: a kernel with one planted mistake; type the line and the fix.")
@click.option("--review-seconds", type=click.FloatRange(min=5), default=300, show_default=True,
              help="The clock of each code-review question, in seconds.")
@lang_option
def mock(minutes, n_drills, questions, oral_seconds, seed, folder, device, kernel_questions, reviews, review_seconds,
         lang):
    """A timed mock interview: code on the clock (graded on every save), then spoken questions, then a scorecard.

    \b
    The drills' skeletons go into a fresh folder; edit them in your editor.
    Enter submits the code (or the clock does). If it passes, the oral round
    opens with a question about your own kernel (how many programs, bytes,
    which lane is masked), checked against your grade. Then the spoken
    questions: type an answer (scored for key points and known-wrong claims)
    or say it aloud and press Enter; see the model answer and rate yourself
    1-5. The scorecard is saved: `drill progress` shows it.
    """
    from coach.mock import tui as mock_tui
    sys.exit(mock_tui.interview(minutes, n_drills, questions, seed, folder, oral_seconds, device, resolve_lang(lang),
                                kernel_questions=kernel_questions, reviews=reviews,
                                review_seconds=review_seconds))


def complete_slow_drill(ctx, param, incomplete):
    from coach.bughunt.slow import drills_with_slow
    return [n for n in drills_with_slow() if n.startswith(incomplete)]


@main.command("why-slow", cls=Command)
@click.argument("name", shell_complete=complete_slow_drill)
@click.option("--answer", "slow_answer", default=None, help='Your answer, e.g. "a 2": the cause\'s letter, then the count asked for '
                                             '(default: typed after the kernel is shown).')
@click.option("--device", type=DEVICE, default="auto", show_default=True, help="Where the two versions are measured.")
@click.option("--seed", type=int, default=None, help="Seed for picking among the drill's slow versions.")
@lang_option
def why_slow(name, slow_answer, device, seed, lang):
    """A correct but slow kernel of drill NAME: say which cause and the count that proves it, checked against a grade.

    \b
    drill why-slow fuse                 the kernel, the causes (a-f), then your answer
    drill why-slow fuse --answer "a 2"  answered up front
    Exit code: 0 both right, 1 not, 2 usage.
    """
    from coach.bughunt import slow
    sys.exit(slow.run(name, slow_answer, device, resolve_lang(lang), seed=seed))


@main.command(cls=Command)
@lang_option
def progress(lang):
    """Per drill and per checkpoint: attempts, passes, grade times, last result, and what is due for review.

    \b
    Reviews are spaced (Leitner boxes, keyed by drill and checkpoint ids): a pass
    moves an item up a box (next review in 1, 3, 7, 16, then 35 days); a fail
    makes it due now. `drill mock` asks what is due first.
    """
    from coach.progress import table as progress_mod
    sys.exit(progress_mod.show(resolve_lang(lang)))


@main.command(cls=Command)
@click.argument("name", shell_complete=complete_drill)
@click.option("--file", "file", type=click.Path(dir_okay=False, path_type=Path),
              help="Your kernel file, lined up piece by piece with Inductor's (read, never run).")
@click.option("--raw", is_flag=True, help="Print the whole output code Inductor wrote, nothing else.")
@click.option("--save", type=click.Path(file_okay=False, path_type=Path),
              help="Write the output code, the kernels and the timings to DIR (never overwrites).")
@click.option("--quiz", is_flag=True, help="Find the mask, the loads and the store in the generated kernel.")
@click.option("--answers", default=None, help="Quiz answers as comma-separated line numbers (no prompts).")
@click.option("--device", type=DEVICE, default="auto", show_default=True, help="Where torch.compile runs.")
@click.option("--backend", type=click.Choice(["auto", "triton", "cpp"]), default="auto", show_default=True,
              help="On CPU: Triton through the interpreter if possible (auto), only Triton, or Inductor's C++.")
@click.option("--cold", is_flag=True, help="Use fresh Inductor/Triton cache folders (an honest cold compile).")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=None, help="Seconds before the compile is killed (default 600).")
@lang_option
def inductor(name, file, raw, save, quiz, answers, device, backend, cold, timeout, lang):
    """Show the kernel torch.compile (Inductor) writes for drill NAME's eager reference, with its pieces annotated.

    \b
    drill inductor vector-add                 annotated kernel, launch, compile vs cache time
    drill inductor vector-add --file add.py   your kernel beside Inductor's, piece by piece
    drill inductor vector-add --quiz          which line is the mask / a load / the store?
    drill inductor vector-add --raw           the whole output code
    """
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
        err = DrillError({"en": f"cannot use {e.filename or ''}: {e.strerror or e}",
                          "zh": f"无法使用 {e.filename or ''}：{e.strerror or e}"})
        err.show()
        sys.exit(err.exit_code)
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    run()
