"""The fitted half of the model protocol: what every fitted model knows and how it is stored.

A :class:`Fitted` holds the posterior it forecasts from, the tidy frames it was fitted to,
its configuration (priors, sampler settings), its summary table and provenance. Like a
statsmodels ``Results`` object it knows its data. Forecasting uses numpy, pandas and xarray
only: PyMC is never imported here.

On disk a fit is a directory:

- ``posterior.nc``: the whole ArviZ InferenceData (posterior, sample_stats, observed_data,
  log_likelihood), so ``arviz.from_netcdf`` opens it for LOO, compare, trace and rank plots;
- ``posterior.npz`` + layout: a fast copy of the forecast variables (see
  :mod:`forecast.core.fastio`); ``data_*.parquet`` + ``data.npz``: the frames;
- ``summary.csv`` and ``config.json`` (model name and version, config, meta).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pandas as pd
import xarray as xr

from forecast.core import fastio
from forecast.core.errors import FitError, ForecastError
from forecast.models.diagnostics import check_gate, gate_values

#: The InferenceData groups a stored fit keeps besides the posterior.
STORED_GROUPS = ("posterior", "sample_stats", "observed_data", "log_likelihood")


def draw_index(n_samples: int, draws: int | None, rng: np.random.Generator) -> np.ndarray:
    """Which posterior samples feed ``draws`` forecast paths: the one rule of every model.

    All samples in order when ``draws`` is None or equals their number; a random subset
    without replacement when fewer are asked for; with replacement only beyond the posterior.
    """
    if draws is None or draws == n_samples:
        return np.arange(n_samples)
    if draws <= 0:
        raise ForecastError(f"draws must be > 0, got {draws}")
    return rng.choice(n_samples, size=draws, replace=draws > n_samples)


@dataclass
class Fitted:
    """Base of every fitted model: posterior, prepared data, configuration, diagnostics.

    Subclasses set ``model_name`` and ``model_version`` and implement :meth:`forecast`.
    ``posterior`` is an xarray Dataset (chain, draw, ...) of the variables forecasts use;
    ``idata`` the whole InferenceData of the fit when it is at hand (loaded lazily from
    ``posterior.nc`` by :meth:`inference_data`).
    """

    model_name: ClassVar[str] = "base"
    model_version: ClassVar[str] = "0"

    posterior: xr.Dataset
    data: dict[str, pd.DataFrame]
    config: dict[str, Any]
    summary_table: pd.DataFrame
    meta: dict[str, Any] = field(default_factory=dict)
    idata: Any = field(default=None, repr=False)
    directory: Path | None = field(default=None, repr=False)

    # ----------------------------------------------------------------- reporting

    def summary(self) -> pd.DataFrame:
        """Posterior summary with r_hat and ESS per parameter and per forecast start state;
        divergences in ``attrs``."""
        table = self.summary_table.copy()
        table.attrs["divergences"] = self.meta.get("divergences", 0)
        return table

    def diagnostics(self) -> dict[str, Any]:
        """max r_hat, min bulk/tail ESS, divergences, and whether the default gate passes."""
        result = gate_values(self.summary_table, int(self.meta.get("divergences", 0)))
        result["converged"] = not check_gate(result)
        return result

    def forecast(self, quarters: Any, draws: int | None = None, seed: int = 0,
                 **drivers: Any) -> xr.Dataset:
        """Joint sample paths after the data: dims ``(draw, quarter, ...)``.

        ``quarters`` is an int h (the h quarters after the fit's last data quarter) or a
        sequence of calendar quarter labels after the data end (quarters in between are
        simulated, not returned). ``draws`` paths resample the posterior by
        :func:`draw_index`.
        """
        raise NotImplementedError

    def stacked(self, name: str, pick: np.ndarray | None = None) -> np.ndarray:
        """Posterior draws of one variable with chain and draw flattened into the first axis.

        Samples are in chain-major order (chain 0's draws, then chain 1's), as xarray's
        ``stack(sample=("chain", "draw"))`` orders them; the other axes keep their order.
        With ``pick`` (sample indices), only those samples, ``stacked(name)[pick]`` without
        copying the rest first. Returns a new array.
        """
        values = self.posterior[name]
        rest = [dim for dim in values.dims if dim not in ("chain", "draw")]
        array = values.transpose("chain", "draw", *rest).values
        flat = array.reshape((-1, *array.shape[2:]))
        return flat.copy() if pick is None else flat[pick]

    def draw_index(self, draws: int | None, rng: np.random.Generator) -> np.ndarray:
        """Posterior samples behind ``draws`` paths (:func:`draw_index`)."""
        return draw_index(self.n_samples, draws, rng)

    @property
    def n_samples(self) -> int:
        return int(self.posterior.sizes["chain"] * self.posterior.sizes["draw"])

    def inference_data(self) -> Any:
        """The whole ArviZ InferenceData of the fit (posterior, sample_stats, observed_data,
        log_likelihood), read from ``posterior.nc`` for a loaded fit."""
        if self.idata is None:
            if self.directory is None:
                raise FitError(f"{self.model_name} fit: no InferenceData in memory or on disk")
            import arviz as az

            path = self.directory / "posterior.nc"
            try:
                self.idata = az.from_netcdf(path)
            except (OSError, ValueError, KeyError) as exc:
                raise FitError(f"{path}: unreadable ({exc})") from None
        return self.idata

    # ----------------------------------------------------------------- persistence

    def save(self, path: str | Path) -> Path:
        """Write the fit to a directory (see the module docstring)."""
        directory = Path(path)
        directory.mkdir(parents=True, exist_ok=True)
        self._write_inference_data(directory / "posterior.nc")
        fastio.save_posterior(self.posterior, directory)
        self.summary_table.to_csv(directory / "summary.csv", index=False)
        for key, frame in self.data.items():
            frame.to_parquet(directory / f"data_{key}.parquet")
        fastio.save_frames(self.data, directory)
        header = {
            "model_name": self.model_name,
            "model_version": self.model_version,
            "config": self.config,
            "meta": self.meta,
            "data_keys": sorted(self.data),
            "posterior_vars": sorted(map(str, self.posterior.data_vars)),
        }
        (directory / "config.json").write_text(json.dumps(header, indent=2, default=str))
        return directory

    def _write_inference_data(self, path: Path) -> None:
        import arviz as az

        idata = self.idata
        if idata is None:
            idata = az.InferenceData(posterior=self.posterior)
        groups = [group for group in STORED_GROUPS if group in idata.groups()]
        idata.to_netcdf(str(path), groups=groups, engine="h5netcdf")

    @classmethod
    def load(cls, path: str | Path) -> Fitted:
        """Load a fit saved by :meth:`save`; a fit of another model or version is a FitError."""
        directory = Path(path)
        header = _read_config(directory)
        name, version = header.get("model_name"), header.get("model_version")
        if name != cls.model_name:
            raise FitError(f"{directory}: holds a {name!r} fit, expected {cls.model_name!r}")
        if version != cls.model_version:
            raise FitError(
                f"{directory}: written by {name} model version {version}, this code reads "
                f"version {cls.model_version}; re-fit (python cli.py refit)"
            )
        # The fast copies when they are there and readable, else the archival files.
        posterior = fastio.load_posterior(directory)
        if posterior is None:
            with xr.open_dataset(directory / "posterior.nc", group="posterior",
                                 engine="h5netcdf") as stored:
                posterior = stored[header["posterior_vars"]].load()
        data = fastio.load_frames(directory, header["data_keys"])
        if data is None:
            data = {key: pd.read_parquet(directory / f"data_{key}.parquet")
                    for key in header["data_keys"]}
        summary = pd.read_csv(directory / "summary.csv")
        return cls(posterior=posterior, data=data, config=header["config"],
                   summary_table=summary, meta=header["meta"], directory=directory)


def _read_config(directory: Path) -> dict[str, Any]:
    try:
        return json.loads((directory / "config.json").read_text())
    except FileNotFoundError:
        raise FitError(f"{directory}: no config.json: not a saved fit") from None
    except json.JSONDecodeError as exc:
        raise FitError(f"{directory / 'config.json'}: corrupt ({exc.msg})") from None
