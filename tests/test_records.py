"""The two formatters every printed figure goes through: a share as a percent and a value
as a table cell, against values written out by hand."""

from __future__ import annotations

import numpy as np
import pytest

from bazarsim.report.records import cell, percent


@pytest.mark.parametrize("args,kwargs,text", [
    ((0.415,), {}, "41.5"),
    ((1,), {}, "100.0"),
    ((0.0,), {}, "0.0"),
    ((-0.0125,), {}, "-1.2"),
    ((0.41567, ".2f"), {}, "41.57"),
    ((0.5,), {"spec": ".0f"}, "50"),
    ((None,), {}, ""),
    ((float("nan"),), {}, ""),
    ((np.float64("nan"),), {}, ""),
    ((None,), {"missing": "-"}, "-"),
    ((float("nan"), ".2f", "n/a"), {}, "n/a"),
    ((np.float64(0.25),), {"missing": "-"}, "25.0"),
    ((float("inf"),), {}, "inf"),
    ((-float("inf"),), {}, "-inf"),
])
def test_percent(args, kwargs, text):
    assert percent(*args, **kwargs) == text


@pytest.mark.parametrize("value,text", [
    (1234.5, "1,234.50"),
    (1.0, "1.00"),
    (-1.0, "-1.00"),
    (-2345.678, "-2,345.68"),
    (0.999999, "0.999999"),
    (0.5, "0.500000"),
    (-0.25, "-0.250000"),
    (0.0, "0.000000"),
    (1234, "1234"),
    ([1, 2.5, "x"], "1, 2.5, x"),
    ((3,), "3"),
    ([], ""),
    ({"a": 1, "b": 2.5}, "a=1, b=2.5"),
    (None, "None"),
    ("text", "text"),
    (True, "True"),
])
def test_cell(value, text):
    assert cell(value) == text
