"""What the command line shows on stderr while it works (forecast.reporting.console.terminal)."""

from __future__ import annotations

import re
import warnings

import pytest

from forecast.reporting.console import terminal


def test_timed_progress_prefixes_the_seconds(capsys):
    progress = terminal.timed_progress()
    progress("market (base): sampling...")
    terminal.say("plain")
    assert re.fullmatch(r"\[    0 s\] market \(base\): sampling\.\.\.\nplain\n",
                        capsys.readouterr().err)


def test_only_the_known_false_alarm_is_hidden():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with terminal.known_false_alarms():
            warnings.warn(terminal.POTENTIALS_WARNING + ". This is likely to lead to invalid "
                          "or biased predictive samples.", UserWarning, stacklevel=1)
            warnings.warn("The effect of something else", UserWarning, stacklevel=1)
            warnings.warn(terminal.POTENTIALS_WARNING, RuntimeWarning, stacklevel=1)
        warnings.warn(terminal.POTENTIALS_WARNING, UserWarning, stacklevel=1)  # outside
    assert [(w.category, str(w.message)[:30]) for w in caught] == [
        (UserWarning, "The effect of something else"),
        (RuntimeWarning, terminal.POTENTIALS_WARNING[:30]),
        (UserWarning, terminal.POTENTIALS_WARNING[:30])]


@pytest.mark.parametrize("fits", [True, False])
def test_no_bars_off_a_terminal(fits, capsys):
    import argparse

    from forecast.models import sampling

    with terminal.sampler_display(argparse.Namespace(fits=fits)) as shown:
        assert shown is False and sampling._PROGRESS_BARS is False
