"""Spaced repetition, Leitner style, keyed by ids ("drill:mask", "checkpoint:why-mask"), never by text.

An item is a small dict stored in the learner's state: {"box": int, "due": epoch seconds, "reviews": int}.
- A pass at or after the due time moves the item one box up; its next review is INTERVALS[box] later.
- A pass before it is due changes nothing (re-grading the same file ten times is not ten reviews).
- A fail sends it back to box 0, due now.
- An item never seen is due now.
Pure functions: `now` is always passed in, so tests need no clock.
"""
from __future__ import annotations

from grader.core import catalog

DAY = 86400.0
# Box k -> seconds until the next review after a pass that lands in box k.
INTERVALS = (0.0, 1 * DAY, 3 * DAY, 7 * DAY, 16 * DAY, 35 * DAY)
MAX_BOX = len(INTERVALS) - 1


def new_item() -> dict:
    return {"box": 0, "due": 0.0, "reviews": 0}


def review(item: dict | None, passed: bool, now: float) -> dict:
    """The item after one review at time `now` (a new dict; the input is not changed)."""
    item = dict(item or new_item())
    item["reviews"] = item.get("reviews", 0) + 1
    item["last"] = now
    if not passed:
        item["box"], item["due"] = 0, now
        return item
    if now >= item.get("due", 0.0):
        item["box"] = min(item.get("box", 0) + 1, MAX_BOX)
        item["due"] = now + INTERVALS[item["box"]]
    return item


def is_due(item: dict | None, now: float) -> bool:
    return item is None or now >= item.get("due", 0.0)


def priority(item: dict | None, now: float) -> tuple:
    """Sort key, most urgent first: never seen, then due (lowest box, most overdue), then not yet due (soonest)."""
    if item is None or not item.get("reviews"):
        return (0, 0, 0.0)
    if is_due(item, now):
        return (1, item.get("box", 0), item.get("due", 0.0))
    return (2, item.get("box", 0), item.get("due", 0.0))


def due_in(item: dict | None, now: float) -> float:
    """Seconds until the item is due (0 when due now)."""
    if item is None:
        return 0.0
    return max(0.0, item.get("due", 0.0) - now)


def describe_due(item: dict | None, now: float, lang: str = "en") -> str:
    """'now', 'in 3 d', 'in 5 h' — for the progress table."""
    s = due_in(item, now)
    if s <= 0:
        return catalog.text("coach.time.now", lang)
    if s >= DAY - 3600:
        n, unit = round(s / DAY), "day"
    elif s >= 3600:
        n, unit = round(s / 3600), "hour"
    else:
        n, unit = max(1, round(s / 60)), "minute"
    return catalog.text("coach.time.due_in", lang, n=n, unit=catalog.text(f"coach.time.{unit}", lang))
