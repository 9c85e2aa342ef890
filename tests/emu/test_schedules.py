"""Wave schedules (gpubench/emu/schedule.py) through the Python API: the order waves run in follows the
schedule, every correct kernel gives its reference's result under every schedule, a kernel that
leaves a barrier out gives a wrong one under some schedule, and random:SEED replays exactly."""
import numpy as np
import pytest
from kernel_runner import cases, run_case

from gpubench.emu.schedule import Schedule

SCHEDULES = ("lockstep", "per-wave", "reverse", "random:1", "random:2")


def test_parse_names_every_schedule_and_keeps_the_seed():
    assert [str(Schedule.parse(s)) for s in SCHEDULES] == list(SCHEDULES)
    drawn = Schedule.parse("random")
    assert drawn.seed is not None and str(drawn) == f"random:{drawn.seed}"
    for bad in ("fastest", "per-wave:3", "random:x"):
        with pytest.raises(ValueError, match="schedule"):
            Schedule.parse(bad)


def _ticket_order(wave_size: int, schedule: str) -> np.ndarray:
    """atomic_hist's slots[]: the work-items in the order their wave took its tickets (one returning
    atomic per wave, lanes in order), 4 workgroups of 256 work-items; waves of one issue in index order."""
    per_group = 256 // wave_size
    waves = [(group, wave) for group in range(4) for wave in range(per_group)]  # lockstep: one issue, wave index order
    if schedule == "per-wave":  # wave 0 of every workgroup issues first, then wave 1 ...
        waves.sort(key=lambda gw: (gw[1], gw[0]))
    elif schedule == "reverse":
        waves.sort(key=lambda gw: (-gw[1], gw[0]))
    items = [group * 256 + wave * wave_size + np.arange(wave_size) for group, wave in waves]
    return np.concatenate(items).astype(np.uint32)


@pytest.mark.parametrize("variant", ["gfx1100", "gfx942"])
@pytest.mark.parametrize("schedule", ["lockstep", "per-wave", "reverse"])
def test_waves_take_atomic_tickets_in_the_schedules_order(variant, schedule):
    _, _, outputs, stats = run_case(cases.CASES["atomic_hist"], variant, schedule=schedule)
    assert np.array_equal(outputs["slots"], _ticket_order(cases.VARIANTS[variant].wave_size, schedule))
    assert stats.schedule == schedule


def test_random_schedule_replays_per_seed_and_seeds_differ():
    case = cases.CASES["atomic_hist"]
    slots = {seed: [run_case(case, "gfx1100", schedule=f"random:{seed}")[2]["slots"] for _ in range(2)]
             for seed in (1, 2)}
    for first, again in slots.values():
        assert np.array_equal(first, again)
        assert sorted(first) == list(range(1024))
    assert not np.array_equal(slots[1][0], slots[2][0])


# Every correct case on one target under every schedule; those with barriers on every target.
BARRIERS = ("reduce_sum", "matmul_tiled", "scan_lds", "atomic_lds", "dispatch_ids")
CORRECT = [(c.name, "gfx1100") for c in cases.GOOD] + \
    [(name, v) for name in BARRIERS for v in cases.CASES[name].variants if v != "gfx1100"]


@pytest.mark.parametrize("schedule", SCHEDULES[1:])
@pytest.mark.parametrize("name,variant", CORRECT)
def test_correct_kernels_match_their_reference_under_every_schedule(name, variant, schedule):
    case = cases.CASES[name]
    inputs, _, outputs, _ = run_case(case, variant, schedule=schedule)
    assert case.check(outputs, case.expected(inputs, variant)) == []


@pytest.mark.parametrize("variant", cases.PORTABLE)
@pytest.mark.parametrize("name", [c.name for c in cases.RACY])
def test_a_missing_barrier_hides_in_lockstep_and_shows_per_wave(name, variant):
    case = cases.CASES[name]
    wrong = {}
    for schedule in ("lockstep", "per-wave"):
        inputs, _, outputs, _ = run_case(case, variant, schedule=schedule)
        wrong[schedule] = bool(case.check(outputs, case.expected(inputs, variant)))
    assert wrong == {"lockstep": False, "per-wave": True}

def test_the_debugger_steps_waves_in_the_schedules_order(monkeypatch):
    """Under per-wave, stepping wave 0 leaves the other waves of its workgroup where they started;
    under lockstep they step with it."""
    import gpubench
    from gpubench.debug import Session

    case = cases.CASES["reduce_sum"]
    executed = {}
    for schedule in ("per-wave", "lockstep"):
        monkeypatch.setenv("GPUBENCH_SCHEDULE", schedule)
        dev = gpubench.Device("gfx1100")
        inputs = case.inputs(0)
        args = (dev.to_device(inputs["in"]), dev.to_device(inputs["out"]))
        session = Session.load(dev, case.code_object("gfx1100"), case.kernel, case.grid, case.block, args)
        session.stepi(5)
        executed[schedule] = session.waves.executed.reshape(4, 8).copy()
        session.close()
    assert executed["per-wave"][:, 0].tolist() == [5] * 4 and not executed["per-wave"][:, 1:].any()
    assert (executed["lockstep"] == 5).all()


def test_gpubench_debug_prints_the_drawn_seed(monkeypatch):
    from click.testing import CliRunner

    from gpubench.cli import main

    monkeypatch.setenv("GPUBENCH_SCHEDULE", "lockstep")  # the command sets it: restored after the test
    path = str(cases.CASES["reduce_sum"].code_object("gfx1100"))
    result = CliRunner().invoke(main, ["debug", path, "reduce_sum", "--block", "256", "--arg",
                                                       "ones:f32:256", "--arg", "zeros:f32:1", "--schedule", "random",
                                                       "--batch"], input="stepi\n")
    assert result.exit_code == 0, result.output + result.stderr
    seed = int(result.stderr.split("schedule random:")[1].split()[0])
    assert f"--schedule random:{seed} repeats it" in result.stderr
