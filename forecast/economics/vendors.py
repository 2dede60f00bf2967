"""Vendor groups as the data define them (``data/vendor_groups.csv``).

Which vendor groups the spend model covers (and in which order), which one is its log-ratio
reference and which groups design their own silicon are rows of the data, not constants of
the code: a new vendor with unit data, or a cloud company starting its own chip, is a data
change.
"""

from __future__ import annotations

from forecast.core.errors import ForecastError
from forecast.data.dataset import Dataset
from forecast.data.memo import per_dataset

__all__ = ["custom_silicon_groups", "reference_vendor", "share_vendors"]


def share_vendors(dataset: Dataset) -> tuple[str, ...]:
    """Vendor groups the spend model covers, in model order (``share_model_order``).

    Parameters
    ----------
    dataset : Dataset
        The data.

    Returns
    -------
    tuple of str
        Groups with a ``share_model_order``, sorted by it; the first is the log-ratio
        reference.

    Raises
    ------
    ForecastError
        When no group has a position (the spend model would cover nothing).
    """
    return per_dataset(dataset, ("share_vendors",), lambda: _share_vendors(dataset))


def _share_vendors(dataset: Dataset) -> tuple[str, ...]:
    table = dataset.vendor_groups
    covered = table[table["share_model_order"].notna()].drop_duplicates("vendor_group")
    vendors = tuple(str(group) for group in
                    covered.sort_values("share_model_order", kind="stable")["vendor_group"])
    if not vendors:
        raise ForecastError("vendor_groups.csv gives no group a share_model_order")
    return vendors


def reference_vendor(dataset: Dataset) -> str:
    """The spend model's log-ratio reference: the first of :func:`share_vendors`."""
    return share_vendors(dataset)[0]


def custom_silicon_groups(dataset: Dataset) -> tuple[str, ...]:
    """Vendor groups whose chips are custom silicon (``silicon == "custom"``), in file order."""
    table = dataset.vendor_groups
    groups = table.loc[table["silicon"] == "custom", "vendor_group"]
    return tuple(dict.fromkeys(str(group) for group in groups))
