"""benchmarks/attribution.py's table (issue 36): the one Markdown table `--real` and the one-bug fakes print, from
stubbed runs (no `check` is run here), and the one-bug fakes' `PLANTED_FITS`, judged before any run."""

from collections import Counter

from fakes.harness import attribution_module


def _found(*causes):
    return {"names": Counter(), "causes": [{"name": name, "records": records} for name, records in causes] or None}


#: command -> what the stubbed `check` of it gives: (exit code or None on timeout, wall s, child CPU s, found)
STUBBED = {
    "x-buggy": (1, 6.0, 3.0, _found(("b + a-cause", 5), ("unexplained", 2))),
    "x-fixed": (0, 2.0, 1.5, _found()),
    "y-buggy": (1, 4.0, 1.0, _found(("spelt", 3), ("other", 3))),  # a tie: the first listed is the main cause
    "y-fixed": (0, 4.0, 2.0, _found()),
    "z-buggy": (None, 300.0, 120.5, _found()),  # killed at the timeout: no footer
    "z-fixed": (0, 2.5, 1.0, _found()),
}

# Written by hand from STUBBED: x's main cause holds the accepted part `a-cause` (fits), wall 6.0/2.0 = 3.00, CPU
# 3.0/1.5 = 2.00; y's `spelt` is not accepted but is the spelling of `ideal` (fits no, same mechanism yes), wall
# 4.0/4.0 = 1.00, CPU 1.0/2.0 = 0.50; z timed out (no cause), wall 300.0/2.5 = 120.00, CPU 120.5/1.0 = 120.50.
# Footer: exit 1 for x and y (2/3), fits x (1/3), with spellings x and y (2/3), one timeout; wall ratios 3, 1, 120
# (median 3.00), CPU ratios 2, 0.5, 120.5 (median 2.00).
EXPECTED = """\
| bug | kind | caught | main cause | fits | fits, same mechanism | other causes (records) | wall s failing / fixed \
| child CPU s failing / fixed |
|---|---|---|---|---|---|---|---|---|
| mutant_x | k1 | yes | `b + a-cause` | yes | yes | `unexplained` x2 | 6.0 / 2.0 = 3.00 | 3.0 / 1.5 = 2.00 |
| planted:y | k2 | yes | `spelt` | no | yes | `other` x3 | 4.0 / 4.0 = 1.00 | 1.0 / 2.0 = 0.50 |
| planted:z | k3 | timeout | - | no | no | - | 300.0 / 2.5 = 120.00 | 120.5 / 1.0 = 120.50 |

caught 2/3, fits 1/3 (2/3 with the catalogue's spellings of the same mechanisms), timeouts 1; ratio failing/fixed: \
wall median 3.00 max 120.00, child CPU median 2.00 max 120.50
"""


def test_the_table_of_stubbed_runs_is_the_hand_written_one(capsys):
    attribution = attribution_module()
    calls = []

    def runner(command, report, examples, timeout):
        calls.append((command, examples, timeout))
        return STUBBED[command]

    bugs = [attribution.Attributed("mutant_x", "k1", "x-buggy", "x-fixed", ("a-cause",), {}),
            attribution.Attributed("planted:y", "k2", "y-buggy", "y-fixed", ("ideal",), {"ideal": ("spelt",)}),
            attribution.Attributed("planted:z", "k3", "z-buggy", "z-fixed", ("c",), {})]
    runs = attribution.run_table(bugs, 40, 300.0, runner=runner)
    assert capsys.readouterr().out == EXPECTED
    # each bug's failing run, then its fixed twin's, with the examples and the timeout given
    assert calls == [(f"{name}-{side}", 40, 300.0) for name in "xyz" for side in ("buggy", "fixed")]
    assert [run.fit for run in runs] == [True, False, False]


def test_every_one_bug_fake_has_fits_and_a_kind_and_its_commands():
    attribution = attribution_module()
    names = attribution.one_bug_implementations()
    assert set(attribution.PLANTED_FITS) == set(names)
    entries = attribution.one_bug_table_entries(names)
    assert entries is not None and [e.name for e in entries] == names
    assert all(e.fits and e.kind != "-" and e.spellings == attribution.SAME_MECHANISM_PLANTED for e in entries)
    # the one post-hoc spelling (benchmarks/README.md): bp-ratio-division's r = 0, the only fake it can count for
    assert attribution.SAME_MECHANISM_PLANTED == {"error-when-reference-empty": ("error-when-reference-length-zero",)}
    assert [e.name for e in entries if set(e.fits) & set(attribution.SAME_MECHANISM_PLANTED)] == [
        "planted:bp-ratio-division"]
    clip = next(e for e in entries if e.name == "planted:clip-lt")
    assert clip.buggy.endswith("plantedbleu.py clip-lt") and clip.fixed.endswith("plantedbleu.py clean")
    assert set(attribution.PLANTED_CONTROLS) <= set(names)
    # a real bug keeps its own fits and spellings; an unknown name is no entry
    real = attribution.one_bug_table_entries(["real:percent-scale"])
    assert real is not None and real[0].fits == attribution.real_bugs()["percent-scale"].fits
    assert attribution.one_bug_table_entries(["mutant_bp_missing", "no-such-fake"]) is None
    assert attribution.main(["--only", "no-such-fake"]) == 2


def test_every_planted_fit_is_a_name_check_can_give():
    """A misspelt fit would count a named bug as a miss: each is a catalogue name, a member of one of its families
    (a smoothing reading, an error or crash trigger) or the pseudo-class of an outcome that is not a wrong number."""
    from oracle.diagnose.attribute import NON_SCORE_CLASSES  # noqa: PLC0415 - the oracle, only for this test
    from oracle.diagnose.mechanisms import lookup  # noqa: PLC0415

    attribution = attribution_module()
    families = ("smoothing=", "error-when-", "crash-after-")
    for name, accepted in attribution.PLANTED_FITS.items():
        for cause in accepted:  # (`lookup`: a catalogue name, or a member of a family such as a searched cap)
            assert lookup(cause) is not None or cause in NON_SCORE_CLASSES or cause.startswith(families), (name, cause)
    assert lookup("no-such-mechanism") is None
