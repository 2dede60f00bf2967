"""Which window quarters a rival's own reports observe (forecast.models.spend.evidence)."""

from __future__ import annotations

import pandas as pd

from forecast.models.spend.evidence import last_reported
from forecast.models.spend.math import RIVALS


def _rows(pairs: list[tuple[str, str]]) -> pd.DataFrame:
    return pd.DataFrame(pairs, columns=["series", "quarter"])


def test_each_rival_is_reported_up_to_its_own_last_report_or_guide() -> None:
    window = ["2024Q1", "2024Q2", "2024Q3", "2024Q4", "2025Q1"]
    observations = _rows([("nvidia_data_center", "2024Q4"), ("amd_data_center", "2024Q2"),
                          ("amd_data_center", "2024Q3"), ("broadcom_ai", "2024Q2")])
    # NVIDIA's guide sets the window's end; Broadcom's guide reaches a quarter past it.
    guidance = _rows([("nvidia_data_center", "2025Q1"), ("broadcom_ai", "2025Q2")])
    last = dict(zip(RIVALS, last_reported(observations, guidance, window, RIVALS).tolist(),
                    strict=True))
    # AMD's last report is 2024Q3; the custom group's guide is clipped to the window; AWS
    # and the rest have no series of their own: the window's end.
    assert last == {"amd": 2, "custom": 4, "aws": 4, "rest": 4}
    no_guides = last_reported(observations, guidance.iloc[:0], window, RIVALS)
    assert no_guides.tolist() == [2, 1, 4, 4]
