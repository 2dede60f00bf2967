"""The backtests published beside the shipped fit (``published/backtests/<name>.json``).

``python -m forecast.pipeline.published_backtests`` runs the price, spend and share backtests
on ``data/`` at the models' default samplers, with the CLI's defaults (6 origins, 1-4
quarters ahead, 1,000 draws), serially in one process so that the spend and share backtests
share their spend fits (:func:`~forecast.evaluation.spend_forecasters.shared_fits`: the same
seeded fits either command makes). Each file is the JSON ``python cli.py backtest NAME
--format json`` prints, with the command, the data hash, the model versions and every fit's
diagnostics beside it. Run it after ``python cli.py fits ship``; the results page
(``python -m forecast.reporting.results``) reads the files.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from forecast.evaluation.price_backtest import backtest_price_cli
from forecast.evaluation.share_backtest import backtest_share_cli
from forecast.evaluation.spend_backtest import backtest_spend
from forecast.evaluation.spend_forecasters import shared_fits

#: The published backtests, in the order they run.
RUNS: dict[str, Callable[..., Any]] = {"price": backtest_price_cli, "spend": backtest_spend,
                                       "share": backtest_share_cli}
#: The models each backtest fits: its record carries their versions only, so that a new
#: version of one model does not outdate the others' backtests.
MODELS: dict[str, tuple[str, ...]] = {"price": ("price",), "spend": ("spend",),
                                      "share": ("spend",)}
DEFAULTS = {"origins": 6, "quarters": 4, "draws": 1000}
#: Per-backtest overrides: the spend model needs four quarters of the rivals' positions
#: before a cut-off (five cut-offs have them), and the shares' origins four quarters to score
#: after three of a rival's reported ratios (four cut-offs).
OVERRIDES: dict[str, dict[str, int]] = {"spend": {"origins": 5}, "share": {"origins": 4}}


def backtest_versions(name: str, versions: dict[str, str]) -> dict[str, str]:
    """The versions of the models backtest ``name`` fits (:data:`MODELS`), of ``versions``."""
    return {model: versions[model] for model in MODELS.get(name, tuple(versions))}


def backtest_record(name: str, tidy: Any, summary: Any, data_hash: str,
                    options: dict[str, int]) -> dict[str, Any]:
    """A backtest's harness report and summary table with its provenance."""
    from forecast.store.shipped import model_versions

    command = (f"python cli.py backtest {name} --origins {options['origins']} --quarters "
               f"{options['quarters']} --draws {options['draws']} --format json")
    return {"command": command, "data_hash": data_hash,
            "model_versions": backtest_versions(name, model_versions()),
            "fits": tidy.attrs.get("fits", []), "failures": tidy.attrs.get("failures", []),
            "weights": tidy.attrs.get("weights", {}),
            "summary": summary.to_dict("records"), **tidy.attrs["report"]}


def publish_backtests(names: Sequence[str] = tuple(RUNS), target: Path | None = None,
                      progress: Callable[[str], None] = print) -> list[Path]:
    """Run the backtests ``names`` and write them under ``target`` (default the shipped
    fit's ``backtests/``); returns the files written."""
    from forecast.data.dataset import DEFAULT_DATA_DIR, load_dataset
    from forecast.store.shipped import BACKTESTS, SHIPPED_DIR

    dataset = load_dataset(DEFAULT_DATA_DIR)
    directory = Path(target) if target is not None else SHIPPED_DIR / BACKTESTS
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    with shared_fits():
        for name in names:
            options = {**DEFAULTS, **OVERRIDES.get(name, {})}
            progress(f"backtest {name}: {options['origins']} origins, default sampler")
            kwargs = {"progress": progress} if name != "price" else {}
            tidy, summary = RUNS[name](dataset, map_fn=map, **options, **kwargs)
            record = backtest_record(name, tidy, summary, dataset.data_hash, options)
            path = directory / f"{name}.json"
            path.write_text(json.dumps(record, indent=2, default=str) + "\n")
            written.append(path)
            progress(f"wrote {path}")
    return written


if __name__ == "__main__":
    publish_backtests(sys.argv[1:] or tuple(RUNS))
