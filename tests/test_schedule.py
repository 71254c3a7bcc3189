from coach.progress import schedule as S

NOW = 1_000_000.0


def test_unseen_is_due_and_first():
    assert S.is_due(None, NOW)
    seen = S.review(None, True, NOW)
    assert S.priority(None, NOW) < S.priority(seen, NOW)


def test_pass_grows_interval_fail_resets():
    item = S.review(None, True, NOW)
    assert item["box"] == 1 and item["due"] == NOW + S.INTERVALS[1]
    assert not S.is_due(item, NOW + 10)
    t = item["due"]
    item = S.review(item, True, t)
    assert item["box"] == 2 and item["due"] == t + S.INTERVALS[2]
    assert S.INTERVALS[2] > S.INTERVALS[1]
    item = S.review(item, False, t + 5)
    assert item["box"] == 0 and S.is_due(item, t + 5)


def test_early_pass_does_not_promote():
    item = S.review(None, True, NOW)
    again = S.review(item, True, NOW + 60)  # graded the same file again a minute later
    assert again["box"] == 1 and again["due"] == item["due"]
    assert again["reviews"] == 2


def test_box_is_capped():
    item, t = None, NOW
    for _ in range(20):
        item = S.review(item, True, t)
        t = item["due"]
    assert item["box"] == S.MAX_BOX


def test_review_does_not_mutate_input():
    item = S.review(None, True, NOW)
    before = dict(item)
    S.review(item, False, NOW + 1)
    assert item == before


def test_priority_orders_due_before_not_due_and_low_box_first():
    low = {"box": 1, "due": NOW - 10, "reviews": 3}
    high = {"box": 3, "due": NOW - 10, "reviews": 3}
    later = {"box": 0, "due": NOW + 100, "reviews": 1}
    assert sorted([later, high, low], key=lambda i: S.priority(i, NOW)) == [low, high, later]


def test_describe_due():
    assert S.describe_due(None, NOW) == "now"
    assert S.describe_due({"due": NOW + 3 * S.DAY}, NOW) == "in 3 d"
    assert S.describe_due({"due": NOW + 2 * 3600}, NOW, "zh") == "2 小时后"
