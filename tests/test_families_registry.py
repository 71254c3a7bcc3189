"""grader/families/registry.py: the pipeline reaches a drill family only through its hooks, looked up by name, so a
new family is one rule module that a spec turns on (its own field, or its name in `spec.rules`)."""
from __future__ import annotations

import dataclasses
import io
import types

from rich.console import Console
from rich.text import Text

from drills import get_spec
from grader.families import registry
from grader.reporting import report
from grader.run import runner


def toy_family(seen: list):
    """A family no drill has: a check row, a merge step, a whole message and a report section."""
    fam = types.ModuleType("grader.families.toy")
    fam.applies = lambda spec: False  # on only where a spec names it in `rules`

    def annotate(v, calls, runs, spec):
        seen.append(("annotate", spec.rules["toy"]["limit"], len(calls)))
        for c in calls:  # a call over the toy limit fails: the verdict's focus is picked from it after this hook
            if c.get("toy_over"):
                c["category"], c["detail"] = "wrong-values", {"toy": True}
                v.passed, v.diagnosis = False, "wrong-values"

    def what_and_fix(v, spec, lang, fmt):
        return ("toy what", "toy fix") if (v.detail or {}).get("toy") else None

    fam.annotate = annotate
    fam.what_and_fix = what_and_fix
    fam.check_rows = lambda spec: [("within the toy rule", ("toy",))]
    fam.render_parts = lambda v, spec, lang: [Text("toy section " + lang)]
    return fam


def with_toy(monkeypatch, seen):
    known = registry.families()
    monkeypatch.setattr(registry, "families", lambda: (*known, ("toy", toy_family(seen))))
    spec = dataclasses.replace(get_spec("vector-add"), rules={"toy": {"limit": 3}})
    monkeypatch.setattr(report, "get_spec", lambda name: spec)
    # a family's check names live in texts.yaml's `checks` (the recipe's step 7): the toy's, for this test only
    from grader.reporting import i18n
    monkeypatch.setitem(i18n.CHECKS, "within the toy rule", {"en": "within the toy rule", "zh": "符合玩具规则"})
    return spec


def one_call(**extra) -> dict:
    return {"size": 8, "seed": 0, "call": 0, "category": None, "detail": {}, "launches": [], **extra}


def test_a_family_named_in_spec_rules_adds_its_check_row_merge_step_and_report_section(monkeypatch):
    seen = []
    spec = with_toy(monkeypatch, seen)
    assert [n for n, _ in registry.for_spec(spec)] == ["fusion", "toy"]
    v = runner.Verdict(drill=spec.name, file="x.py", device="cpu", passed=False, diagnosis=None)
    runner.merge(v, [runner.ChildRun(device="cpu", result={"calls": [one_call()]})], spec)
    assert v.passed and seen == [("annotate", 3, 1)]
    assert v.checks[-1]["name"] == "within the toy rule" and v.checks[-1]["passed"]
    out = io.StringIO()
    report.print_verdict(v, "zh", Console(file=out, width=120, color_system=None))
    assert "toy section zh" in out.getvalue()


def test_a_family_that_fails_a_verdict_also_explains_it(monkeypatch):
    seen = []
    spec = with_toy(monkeypatch, seen)
    v = runner.Verdict(drill=spec.name, file="x.py", device="cpu", passed=False, diagnosis=None)
    runner.merge(v, [runner.ChildRun(device="cpu", result={"calls": [one_call(toy_over=True)]})], spec)
    assert not v.passed and v.diagnosis == "wrong-values"
    assert report.explain(v, "en") == ("toy what", "toy fix")


def test_a_spec_without_the_family_never_reaches_its_hooks(monkeypatch):
    seen = []
    with_toy(monkeypatch, seen)
    plain = get_spec("vector-add")
    assert registry.hooks(plain, "check_rows") == [] and registry.hooks(plain, "render_parts")[0].__module__ \
        == "grader.reporting.fusion_report"
    v = runner.Verdict(drill=plain.name, file="x.py", device="cpu", passed=False, diagnosis=None)
    runner.merge(v, [runner.ChildRun(device="cpu", result={"calls": [one_call()]})], plain)
    assert seen == [] and all(c["name"] != "within the toy rule" for c in v.checks)


def test_the_families_run_in_their_rule_order():
    assert registry.names() == ["fusion", "limits", "training", "compiled"]
    assert all(isinstance(m.RULE_ORDER, int) for _, m in registry.families())


def test_each_family_is_on_for_the_specs_whose_field_asks_for_it():
    from drills import SPECS

    on = {s.name: [n for n, _ in registry.for_spec(s)] for s in SPECS}
    for s in SPECS:
        assert ("limits" in on[s.name]) == (s.device_limits is not None or s.contract is not None)
        assert ("training" in on[s.name]) == (s.grads is not None)
        assert ("compiled" in on[s.name]) == (s.compile_lab is not None)
    assert any("limits" in v for v in on.values()) and any("training" in v for v in on.values()) \
        and any("compiled" in v for v in on.values())


def test_the_report_hooks_of_a_family_come_from_its_report_module():
    heur = next(s for s in __import__("drills").SPECS if s.device_limits is not None)
    mods = [fn.__module__ for fn in registry.hooks(heur, "what_and_fix")]
    assert mods == ["grader.reporting.limits_report"]
    assert [fn.__module__ for fn in registry.hooks(heur, "render_parts")] == \
        ["grader.reporting.fusion_report", "grader.reporting.limits_report"]
