"""drill's click classes: usage errors as one line (coach.errors), and every `--help` text from the catalog
(texts.yaml `help`): a command's text and its options' in English when the command is built, swapped for Chinese while
the help is formatted when the learner's language is zh (`--lang zh`, $DRILL_LANG, $LANG)."""
from __future__ import annotations

import click

from coach.errors import argv_lang
from grader.core import catalog

GROUP = "drill"  # the catalog's name for the top-level group's texts


def help_text(command: str, lang: str, param: str | None = None) -> str:
    """The help of `command` (a subcommand's name, or GROUP), or of its option `param`: the command's own text,
    else the one every command shares (`help.options.all`)."""
    if param is None:
        return catalog.text(f"help.commands.{command}", lang)
    own = catalog.table("help.options").get(command) or {}
    return catalog.text(f"help.options.{command if param in own else 'all'}.{param}", lang)


def _param_key(cmd: click.Command, ctx, p) -> str:
    return "help" if ctx is not None and p is cmd.get_help_option(ctx) else p.name


class _Zh:
    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        key = GROUP if isinstance(self, click.Group) else self.name
        if self.help is None:
            self.help = help_text(key, "en")
        for p in self.params:
            if isinstance(p, click.Option) and p.help is None:
                p.help = help_text(key, "en", p.name)

    def catalog_key(self, ctx) -> str:
        return GROUP if ctx.parent is None else self.name

    def parse_args(self, ctx, args):
        """Click's usage errors (an unknown option, a missing argument) as drill's one line, and as the JSON error
        object under --json, in click's standalone mode too."""
        from coach.errors import usage_error

        try:
            return super().parse_args(ctx, list(args))
        except click.exceptions.UsageError as e:
            raise usage_error(e, args) from None

    def get_help(self, ctx):
        if argv_lang() != "zh":
            return super().get_help(ctx)
        saved = (self.help, [(p, getattr(p, "help", None)) for p in self.get_params(ctx)])
        name = self.catalog_key(ctx)
        self.help = help_text(name, "zh")
        for p, _ in saved[1]:
            if isinstance(p, click.Option):
                p.help = help_text(name, "zh", _param_key(self, ctx, p))
        try:
            return super().get_help(ctx)
        finally:
            self.help = saved[0]
            for p, h in saved[1]:
                if hasattr(p, "help"):
                    p.help = h

    def format_options(self, ctx, formatter):
        if argv_lang() != "zh":
            return super().format_options(ctx, formatter)
        opts = [(name, _click_extras_zh(text)) for p in self.get_params(ctx)
                if (rv := p.get_help_record(ctx)) is not None for name, text in [rv]]
        if opts:
            with formatter.section(catalog.text("help.sections.options", "zh")):
                formatter.write_dl(opts)
        if isinstance(self, click.Group):
            self.format_commands(ctx, formatter)

    def format_usage(self, ctx, formatter):
        if argv_lang() != "zh":
            return super().format_usage(ctx, formatter)
        formatter.write_usage(ctx.command_path, " ".join(self.collect_usage_pieces(ctx)),
                               catalog.text("help.sections.usage", "zh"))


def _click_extras_zh(text: str) -> str:
    """Click's own words at the end of an option's help (`[default: auto; x>=1]`, `[required]`) in Chinese."""
    head, bracket, extras = text.rpartition("  [")
    if not bracket or not extras.endswith("]"):
        return text
    for word in ("default", "required"):
        extras = extras.replace(f"{word}: " if word == "default" else word,
                                catalog.text(f"help.sections.{word}", "zh"))
    return f"{head}  [{extras}"


class Command(_Zh, click.Command):
    pass


class Group(_Zh, click.Group):
    def resolve_command(self, ctx, args):
        from coach.errors import usage_error

        try:
            return super().resolve_command(ctx, args)
        except click.exceptions.UsageError as e:
            raise usage_error(e, args) from None

    def format_commands(self, ctx, formatter):
        if argv_lang() != "zh":
            return super().format_commands(ctx, formatter)
        rows = [(n, help_text(n, "zh").split("\n")[0][:60]) for n in self.list_commands(ctx)]
        with formatter.section(catalog.text("help.sections.commands", "zh")):
            formatter.write_dl(rows)
