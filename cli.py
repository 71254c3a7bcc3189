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
from grader.i18n import resolve_lang

DEVICE = click.Choice(["auto", "cuda", "cpu"])
LANG = click.Choice(["en", "zh"])


def complete_drill(ctx, param, incomplete):
    return [n for n in drills.names() if n.startswith(incomplete)]


lang_option = click.option("--lang", type=LANG, default=None, help="Language: en or zh (default: $DRILL_LANG, then $LANG).")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="drill", message="%(prog)s %(version)s")
def main():
    """Practise Triton and torch.compile for GPU-kernel interviews.

    \b
    drill list                     the drills, with your status
    drill start mask               write the mask drill's skeleton to ./mask.py
    drill grade mask.py            grade it (CUDA if present, else Triton's interpreter)
    drill hint mask                one hint at a time
    drill solution mask            the reference solution
    """


@main.command("list")
@lang_option
def list_cmd(lang):
    """List the drills, with your attempts and passes."""
    actions.list_drills(resolve_lang(lang))


@main.command()
@click.argument("name", shell_complete=complete_drill)
@click.argument("path", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--force", is_flag=True, help="Overwrite PATH, keeping the old file as PATH.bak (or .bak.N).")
@lang_option
def start(name, path, force, lang):
    """Write drill NAME's skeleton to PATH (default ./<name>.py). Never overwrites without --force."""
    sys.exit(actions.start(name, path, force, resolve_lang(lang)))


@main.command()
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--drill", "drill_name", shell_complete=complete_drill, help="Grade as this drill (default: the file's `# drill:` line).")
@click.option("--device", type=DEVICE, default="auto", show_default=True, help="Where the kernel runs.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of the report.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed for the generated inputs.")
@click.option("--timeout", type=float, default=None, help="Seconds before the grade is killed (default: the drill's).")
@lang_option
def grade(file, drill_name, device, as_json, seed, timeout, lang):
    """Grade FILE against eager PyTorch. Exit code: 0 pass, 1 fail, 2 usage or unreadable file."""
    sys.exit(actions.grade(file, drill_name, device, as_json, seed, timeout, resolve_lang(lang)))


@main.command()
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--drill", "drill_name", shell_complete=complete_drill, help="Bench as this drill (default: the file's `# drill:` line).")
@click.option("--sizes", default=None, help="Sizes: 4096,65536 or 2^12..2^27 (default: 2^12..2^27).")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False, path_type=Path), default=None, help="Write a GB/s-vs-size plot (needs matplotlib).")
@click.option("--json", "as_json", is_flag=True, help="Print the sweep as JSON.")
@lang_option
def bench(file, drill_name, sizes, plot_path, as_json, lang):
    """Size sweep of FILE's kernel vs eager and torch.compile (needs a GPU; exit 2 without one)."""
    from coach import bench as bench_action
    sys.exit(bench_action.run(file, drill_name, sizes, plot_path, as_json, resolve_lang(lang)))


@main.command()
@click.argument("name", shell_complete=complete_drill)
@click.option("--reset", is_flag=True, help="Start the hints of NAME again from the first.")
@lang_option
def hint(name, reset, lang):
    """Show the next hint of drill NAME (one at a time)."""
    sys.exit(actions.hint(name, reset, resolve_lang(lang)))


@main.command()
@click.argument("name", shell_complete=complete_drill)
def solution(name):
    """Print the reference solution of drill NAME."""
    sys.exit(actions.solution(name))


if __name__ == "__main__":
    main()
