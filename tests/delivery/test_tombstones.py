"""§11 tombstone bucket contents: the general check and the ``expectTombstones`` step field."""

from hookconf.harness.delivery import checks
from hookconf.harness.delivery.model import DeliveryModel
from tests.delivery.test_replay import _driver

REFUSED = [{"do": "install", "plugin": "a"}, {"do": "terminal", "task": "keep"}]


def _play(steps, config=None):
    driver, cand = _driver(**(config or {"pluginActiveRows": 1}))
    driver.play(steps)
    return driver, cand


def test_expected_buckets_pass_on_the_reference_and_name_each_difference():
    step = {"do": "terminal", "task": "r1", "expectTombstones": [
        {"where": {"pluginId": "a", "day": 0}, "buckets": 1, "count": 2, "first": "r0",
         "last": "r1", "firstTime": "r0", "lastTime": "r1"}]}
    driver, _ = _play([*REFUSED, {"do": "terminal", "task": "r0"}, {"do": "advance", "ms": 5}, step])
    assert driver.problems == {}
    wrong = {"do": "terminal", "task": "r2", "expectTombstones": [
        {"where": {"pluginId": "a", "day": 0}, "buckets": 2, "count": 2, "last": "r1"}]}
    driver.play([wrong])
    text = " ".join(driver.problems.pop("H24")["problems"])
    assert "1 stand, expected 2" in text and "count 3, expected 2" in text
    assert "lastOccurrence is 'occ-4', expected 'occ-3'" in text
    driver.play([{"do": "claim", "expectTombstones": [{"where": {"pluginId": "b"}, "first": "r0"}]}])
    assert "0 stand, expected one with firstOccurrence" in driver.problems["H24"]["problems"][0]


def test_a_daily_bucket_must_hold_its_newest_rejection():
    m = DeliveryModel({})
    m.refusals[("a", "afterComplete", "quota", 0)] = [("occ-1", 10), ("occ-2", 20)]
    bucket = {"pluginId": "a", "hook": "afterComplete", "reason": "quota", "day": 0, "count": 3,
              "firstOccurrence": "occ-9", "lastOccurrence": "occ-1", "firstMs": 10, "lastMs": 10}
    found = " ".join(checks.bucket_content_problems(m, [
        bucket, {**bucket, "pluginId": "*"}, {**bucket, "day": -1}, {**bucket, "pluginId": "z"}]))
    assert "counts 3, its key met 2" in found and "newest rejection into it was 'occ-2'" in found
    assert "is none of the rejections" in found and found.count("tombstone bucket") == 3
    good = {**bucket, "count": 2, "firstOccurrence": "occ-1", "lastOccurrence": "occ-2",
            "lastMs": 20}
    assert checks.bucket_content_problems(m, [good]) == []
