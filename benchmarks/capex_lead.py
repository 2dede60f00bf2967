"""Does big-four hyperscaler capex lead NVIDIA Data Center revenue? (issue #17, item 2)

Run ``python benchmarks/capex_lead.py [--as-of YYYY-MM-DD]``. Loads the shipped data through
the package, sums the quarterly capex of Microsoft, Alphabet, Amazon and Meta on each one's
main series (``data/hyperscaler_capex_quarterly.csv``, ``series == "main"``: cash, excluding
finance leases, except Meta's, which includes finance-lease principal), maps fiscal to
calendar quarters as the spend model does, and prints

(a) the OLS of NVIDIA Data Center log growth in quarter t+1 on capex log growth in quarter t
    (statsmodels: coefficient, standard error, n), and the same without the one pair that moves
    the coefficient most,
(b) the correlation of the two growths in the same quarter,
(c) a one-line conclusion.

NVIDIA Data Center revenue is the spend model's reported series (``observed_series(dataset,
"nvidia_data_center")``), on calendar quarter labels.
"""

from __future__ import annotations

import argparse

import pandas as pd

from forecast.data.dataset import load_dataset
from forecast.evaluation.capex_lead import BIG_FOUR, capex_lead, capex_total, log_growth
from forecast.models.spend.evidence import observed_series


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--as-of", help="cut the data at this date (default: all of it)")
    parser.add_argument("--table", action="store_true",
                        help="also print the quarterly capex total and both growth rates")
    args = parser.parse_args()
    dataset = load_dataset()
    if args.as_of:
        dataset = dataset.as_of(args.as_of)
    total = capex_total(dataset.hyperscaler_capex)
    nvidia = observed_series(dataset, "nvidia_data_center").set_index("quarter")["value"]
    result = capex_lead(total, nvidia)
    print(f"big-four capex ({', '.join(BIG_FOUR)}; main series): {total.index[0]}-"
          f"{total.index[-1]}, {total.iloc[0]:.1f} -> {total.iloc[-1]:.1f} USD bn a quarter")
    if args.table:
        table = pd.DataFrame({"capex_usd_bn": total, "capex_log_growth": log_growth(total),
                              "nvidia_dc_log_growth": log_growth(nvidia)}).dropna(
                                  subset=["capex_usd_bn"])
        print(table.round(3).to_string())
    print(f"(a) OLS nvidia_dc_growth[t+1] ~ capex_growth[t], t = {result.first}..{result.last}: "
          f"coefficient {result.coefficient:.3f}, standard error {result.standard_error:.3f}, "
          f"intercept {result.intercept:.3f}, n = {result.n}")
    print(f"    without the most influential pair (t = {result.influential}): coefficient "
          f"{result.slope_without:.3f}, standard error {result.se_without:.3f}, "
          f"n = {result.n - 1}")
    print(f"(b) same-quarter correlation of the two log growths: "
          f"{result.same_quarter_correlation:.3f} (n = {result.same_quarter_n})")
    print(f"(c) {result.conclusion()}")


if __name__ == "__main__":
    main()
