"""The deterministic scheduler port: picks choose the interleaving, virtual time, deadlocks."""

import pytest

from hookconf.reference.runtime.scheduler import Pause, Scheduler, Sleep, WaitFor


def worker(log, name, n):
    for i in range(n):
        log.append(f"{name}{i}")
        yield Pause(f"{name}{i}")


def test_picks_choose_the_interleaving_and_replay_it():
    def run(picks):
        s, log = Scheduler(), []
        s.spawn("a", worker(log, "a", 2))
        s.spawn("b", worker(log, "b", 2))
        for pick in picks:
            s.step(min(pick, len(s.ready()) - 1))
        while not s.idle:
            s.step(0)
        return log

    assert run([0, 0, 0]) == ["a0", "a1", "b0", "b1"]
    assert run([1, 0, 1]) == ["b0", "a0", "b1", "a1"]
    assert run([1, 0, 1]) == run([1, 0, 1])


def test_only_sleepers_left_advances_the_clock_to_the_earliest_wake():
    s, log = Scheduler(), []

    def sleeper(name, ms):
        yield Sleep(ms)
        log.append((name, s.clock.now_ms()))

    s.spawn("late", sleeper("late", 30))
    s.spawn("early", sleeper("early", 10))
    assert s.run() == "idle"
    assert log == [("early", 10), ("late", 30)]


def test_bounded_wait_wakes_at_its_deadline_or_on_its_predicate():
    s, flag, seen = Scheduler(), [], []

    def waiter():
        yield WaitFor(lambda: bool(flag), "flag", until_ms=50)
        seen.append(s.clock.now_ms())

    s.spawn("w", waiter())
    assert s.run() == "idle" and seen == [50]
    s2, seen2 = Scheduler(), []

    def setter():
        yield Sleep(5)
        flag.append(1)

    def waiter2():
        yield WaitFor(lambda: bool(flag), "flag", until_ms=50)
        seen2.append(s2.clock.now_ms())

    flag.clear()
    s2.spawn("w", waiter2())
    s2.spawn("s", setter())
    s2.run()
    assert seen2 == [5]


def test_a_cycle_of_waits_is_reported_as_a_deadlock_not_a_hang():
    s = Scheduler()
    done = {"a": False, "b": False}

    def proc(me, other):
        yield WaitFor(lambda: done[other], f"waits-for-{other}")
        done[me] = True

    s.spawn("a", proc("a", "b"))
    s.spawn("b", proc("b", "a"))
    assert s.run() == "deadlock"
    assert s.deadlock() == [{"process": "a", "waits": "waits-for-b"},
                            {"process": "b", "waits": "waits-for-a"}]
    assert s.step(0) == ""


def test_a_failing_process_is_recorded_and_others_go_on():
    s = Scheduler()

    def bad():
        yield Pause()
        raise ValueError("boom")

    failing = s.spawn("bad", bad())
    s.spawn("good", iter([Pause()]))
    assert s.run() == "idle"
    assert isinstance(failing.error, ValueError)
    with pytest.raises(IndexError):
        s.spawn("x", iter([Pause()]))
        s.step(5)
