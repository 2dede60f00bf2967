"""The numbers of the model cards (``docs/models/*.md``), written from the shipped fit.

A card marks each block this module writes with ``<!-- results:NAME -->`` and
``<!-- /results:NAME -->``; :func:`fill` replaces what lies between them. The blocks:
``diagnostics-<model>`` (the gate's figures per scenario), ``parameters-<model>`` (base's
posterior of the model's parameters), ``backtest-<name>`` (a stored backtest) and
``bounds-2030`` (how often each long-horizon bound binds). A block the shipped fit cannot fill
says so rather than keeping old numbers.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

#: Rows of a parameters table: a model's scalar parameters, not its latent states.
MAX_PARAMETER_ROWS = 40


def fill(text: str, blocks: Mapping[str, str], prefix: str = "results") -> str:
    """``text`` with every block marked ``<!-- PREFIX:NAME -->`` replaced by
    ``blocks[name]``. Another script's blocks carry another prefix (the prior predictive
    check's, ``prior``), so that neither overwrites the other's."""
    pattern = re.compile(rf"<!-- {prefix}:(?P<name>[\w-]+) -->\n.*?<!-- /{prefix}:(?P=name) -->",
                         re.S)

    def replace(match: re.Match) -> str:
        name = match.group("name")
        body = blocks.get(name, "(not in the shipped fit)")
        return f"<!-- {prefix}:{name} -->\n{body}\n<!-- /{prefix}:{name} -->"

    return pattern.sub(replace, text)


def diagnostics_block(header: Mapping[str, Any], model: str) -> str:
    """r_hat, ESS and divergences of ``model``'s fit under each scenario."""
    lines = ["| scenario | fit | max r_hat | min bulk ESS | min tail ESS | divergences |",
             "|---|---|---|---|---|---|"]
    for scenario, entry in sorted(header.get("scenarios", {}).items()):
        key = entry.get("models", {}).get(model)
        values = header.get("diagnostics", {}).get(key)
        if values is None:
            continue
        lines.append(f"| {scenario} | `{key}` | {values['max_r_hat']:.3f} | "
                     f"{values['min_ess_bulk']:.0f} | {values['min_ess_tail']:.0f} | "
                     f"{values['divergences']} |")
    return "\n".join(lines)


def parameters_block(summary: pd.DataFrame) -> str:
    """Posterior mean, sd, 90% interval, r_hat and bulk ESS of each scalar parameter."""
    frame = summary.copy()
    name = "parameter" if "parameter" in frame.columns else frame.columns[0]
    if "kind" in frame.columns:
        frame = frame[frame["kind"] != "state"]
    frame = frame.head(MAX_PARAMETER_ROWS)
    low, high = _interval_columns(frame)
    lines = ["| parameter | mean | sd | 90% interval | r_hat | bulk ESS |",
             "|---|---|---|---|---|---|"]
    # Records, not itertuples: namedtuples rename columns such as ``hdi_5%``.
    for values in frame.to_dict("records"):
        interval = (f"{values[low]:.3g} to {values[high]:.3g}" if low and high else "")
        lines.append(f"| {values[name]} | {values['mean']:.3g} | {values['sd']:.3g} | "
                     f"{interval} | {values['r_hat']:.3f} | {values['ess_bulk']:.0f} |")
    return "\n".join(lines)


def _interval_columns(frame: pd.DataFrame) -> tuple[str | None, str | None]:
    low = next((c for c in frame.columns if c.startswith("hdi_") and c.endswith("%")
                and float(c[4:-1]) < 50), None)
    high = next((c for c in frame.columns if c.startswith("hdi_") and c.endswith("%")
                 and float(c[4:-1]) > 50), None)
    return low, high


def card_blocks(header: Mapping[str, Any], summaries: Mapping[str, pd.DataFrame],
                backtests: Mapping[str, str], bounds: str) -> dict[str, str]:
    """Every block of the cards: diagnostics and parameters per model (``summaries`` by
    model name, base's fit), the stored backtests by name, the bounds table."""
    blocks = {f"backtest-{name}": text for name, text in backtests.items()}
    for model, summary in summaries.items():
        blocks[f"diagnostics-{model}"] = diagnostics_block(header, model)
        blocks[f"parameters-{model}"] = parameters_block(summary)
    blocks["bounds-2030"] = bounds
    return blocks


def rendered_cards(directory: Path, blocks: Mapping[str, str]) -> dict[Path, str]:
    """Each card of ``directory`` as :func:`fill` writes it."""
    return {path: fill(path.read_text(), blocks) for path in sorted(directory.glob("*.md"))}


def write_cards(directory: Path, blocks: Mapping[str, str],
                write: Callable[[Path, str], Any] = Path.write_text) -> None:
    """Fill every card of ``directory`` in place."""
    for path, text in rendered_cards(directory, blocks).items():
        write(path, text)
