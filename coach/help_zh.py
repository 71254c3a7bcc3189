"""drill's click classes: usage errors as one line (coach.errors), and `--help` in Chinese when the learner's language is zh (`--lang zh`, $DRILL_LANG, $LANG): click's help, with each
command's text and the shared options' texts swapped for their translations while the help is formatted."""
from __future__ import annotations

import click

from coach.errors import argv_lang

COMMANDS = {
    "drill": "练习 Triton 和 torch.compile，准备 GPU kernel 面试。\n\n\b\n"
             "drill list                     按学习顺序列出练习和你的进度\n"
             "drill next                     下一个该做的练习，以及开始它的命令\n"
             "drill start mask               把 mask 练习的骨架写到 ./mask.py\n"
             "drill start mask --bug         一个埋了一个错误的完整 kernel：找出来\n"
             "drill grade mask.py            评测（有 GPU 用 CUDA，否则用 Triton 解释器）\n"
             "drill hint mask                一次一条提示\n"
             "drill solution mask            参考答案\n"
             "drill checkpoints mask         该练习的口述检查点\n"
             "drill checkpoints why-mask --answer \"...\"   给书面回答打分（会记入进度）\n"
             "drill mock --minutes 15        计时模拟面试，最后给出成绩单\n"
             "drill why-slow fuse            一个正确但慢的 kernel：它为什么慢？\n"
             "drill progress                 尝试次数、评测用时、该复习的内容\n"
             "drill inductor fuse            torch.compile 生成的 kernel 与你的对照\n"
             "drill bench my_fuse.py         （GPU）与 eager 和 torch.compile 的尺寸扫描",
    "list": "按学习顺序列出练习，以及你的尝试和通过次数。",
    "next": "按指南顺序给出第一个还没通过的练习，以及开始它的命令。",
    "start": "把练习 NAME 的骨架写到 PATH（默认 ./<name>.py）。不加 --force 绝不覆盖。",
    "grade": "对照 eager PyTorch 评测 FILE。退出码：0 通过，1 未通过，2 用法错误或文件无法读取。",
    "bench": "FILE 的 kernel 与 eager、torch.compile 的尺寸扫描：GB/s，matmul 和 attention 为 TFLOPS（需要 GPU；没有则退出码 2）。",
    "hint": "显示练习 NAME 的下一条提示（一次一条）。",
    "solution": "打印练习 NAME 的参考答案（`# drill:` 行写的是 NAME：保存后可直接评测）。",
    "checkpoints": "打印口述检查点（全部、某个练习的，或按 id 的一个）：问题、参考答案、要点。\n\n\b\n"
                   "drill checkpoints                      全部\n"
                   "drill checkpoints mask                 mask 练习的\n"
                   "drill checkpoints why-mask --answer \"...\" [--json]\n"
                   "加 --answer：回答通过退出码 0，未通过 1，未知 id 为 2。",
    "mock": "计时模拟面试：限时写代码（每次保存都评测），然后口述问题，最后给出成绩单。",
    "progress": "按练习和检查点：尝试、通过、评测用时、上次结果、该复习的内容（间隔复习，Leitner 盒子）。",
    "why-slow": "练习 NAME 的一个正确但慢的 kernel：说出原因和证明它的计数，对照评测结果检查。退出码：0 都对，1 不对，2 用法错误。",
    "inductor": "显示 torch.compile（Inductor）为练习 NAME 的 eager 参考写出的 kernel，并逐段注释。",
}
OPTIONS = {
    "lang": "语言：en 或 zh（默认：$DRILL_LANG，其次 $LANG）。",
    "as_json": "输出一个 JSON 对象，而不是报告。",
    "help": "显示本帮助并退出。",
    "version": "显示版本并退出。",
    "force": "覆盖 PATH，旧文件保存为 PATH.bak（或 .bak.N）。",
    "drill_name": "按这个练习评测（默认：文件里的 `# drill:` 行）。",
    "device": "kernel 在哪里运行。",
    "fmt": "gcc：输出 `file:line:col: error: message` 行，供 vim 的 quickfix 和 VS Code 的 problem matcher 读取。",
    "show_fix": "总是显示修正代码（默认随最后一条提示或同类错误第二次出现时显示）。",
    "seed": "生成输入的随机种子。",
    "timeout": "超过多少秒终止评测（默认：该练习自己的）。",
    "watch": "每次保存（轮询修改时间）或按回车时重新评测；Ctrl-C 退出（退出码 130）。",
    "reset": "从第一条提示重新开始。",
    "bug": "不写骨架，改写一个埋了一个错误的完整 kernel，找出并修好它（代码审查练习）。",
    "reviews": "代码审查轮数：给出一个埋了错误的 kernel，回答行号和一句修改说明。",
    "review_seconds": "每轮代码审查的秒数。",
    "slow_answer": "你的回答，例如 \"a 2\"：原因的字母，再加上要求的计数（默认：看到 kernel 后再输入）。",
    "answer": "给检查点 NAME 的这段书面回答打分（'-' 从标准输入读取）。",
}


class _Zh:
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
        name = "drill" if ctx.parent is None else self.name
        self.help = COMMANDS.get(name, self.help)
        for p, _ in saved[1]:
            if p.name in OPTIONS and hasattr(p, "help"):
                p.help = OPTIONS[p.name]
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
        opts = [rv for p in self.get_params(ctx) if (rv := p.get_help_record(ctx)) is not None]
        if opts:
            with formatter.section("选项"):
                formatter.write_dl(opts)
        if isinstance(self, click.Group):
            self.format_commands(ctx, formatter)

    def format_usage(self, ctx, formatter):
        if argv_lang() != "zh":
            return super().format_usage(ctx, formatter)
        formatter.write_usage(ctx.command_path, " ".join(self.collect_usage_pieces(ctx)), "用法：")


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
        rows = [(n, COMMANDS.get(n, "").split("\n")[0][:60]) for n in self.list_commands(ctx)]
        with formatter.section("命令"):
            formatter.write_dl(rows)
