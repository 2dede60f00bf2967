"""The scenario's AWS roadmap as generations of the AWS silicon forecast (simulate.aws_roadmap)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from forecast.core.calendar import quarter_index
from forecast.core.errors import ForecastError
from forecast.pipeline.simulate import aws_roadmap
from forecast.scenarios.roadmap import Generation

#: The spend fit's ``generations`` frame: ramp midpoints are quarter indices (floats).
FITTED = pd.DataFrame({"generation": ["Trainium1", "Trainium2", "Trainium3"],
                       "ramp_midpoint": [float(quarter_index(q))
                                         for q in ("2022Q4", "2024Q3", "2026Q2")],
                       "fp8_dense_tflops": [190.0, 1299.0, 2517.0]})


def chip(vendor: str, name: str, after: str, prefix: str) -> Generation:
    return Generation(vendor=vendor, name=name, after=after, launch=f"{prefix}_launch",
                      performance=f"{prefix}_perf", price=f"{prefix}_price",
                      announced=pd.Timestamp("2024-12-03").date(), source="test")


INPUTS = pd.DataFrame({
    "t4_launch": [quarter_index("2027Q3"), quarter_index("2026Q1")],
    "t4_perf": [2.0, 3.0], "t4_price": [1.2, 0.9],
    "t5_launch": [quarter_index("2029Q1"), quarter_index("2026Q1")],
    "t5_perf": [1.5, 2.0], "t5_price": [1.1, 1.0],
    "mi_launch": [0, 0], "mi_perf": [9.0, 9.0], "mi_price": [9.0, 9.0],
})


def test_each_generation_follows_its_predecessor_draw_by_draw() -> None:
    roadmap = (chip("amd", "MI450", "MI355X", "mi"), chip("aws", "Trainium4", "Trainium3", "t4"),
               chip("aws", "Trainium5", "Trainium4", "t5"))
    rows = aws_roadmap(roadmap, INPUTS, FITTED)
    assert [row["generation"] for row in rows] == ["Trainium4", "Trainium5"]  # AWS's only
    t4, t5 = rows
    np.testing.assert_allclose(t4["fp8_dense_tflops"], [2517.0 * 2.0, 2517.0 * 3.0])
    np.testing.assert_allclose(t5["fp8_dense_tflops"], t4["fp8_dense_tflops"] * [1.5, 2.0])
    np.testing.assert_array_equal(t4["cost_ratio"], [1.2, 0.9])
    # A launch before the predecessor's ramp is moved to the quarter after it.
    trn3 = quarter_index("2026Q2")
    np.testing.assert_array_equal(t4["ramp_midpoint"], [quarter_index("2027Q3"), trn3 + 1])
    np.testing.assert_array_equal(t5["ramp_midpoint"], [quarter_index("2029Q1"), trn3 + 2])


def test_a_generation_out_of_the_chain_is_refused() -> None:
    roadmap = (chip("aws", "Trainium5", "Trainium4", "t5"),)
    with pytest.raises(ForecastError, match="roadmap.aws.Trainium5: .* follow Trainium3"):
        aws_roadmap(roadmap, INPUTS, FITTED)
    assert aws_roadmap((), INPUTS, FITTED) == []
