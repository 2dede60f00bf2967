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

Given the files' SHA-256 (the fit store records them when it publishes a fit), :meth:`Fitted.load`
checks every file before using it and refuses a damaged fit, naming the file.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Hashable, Mapping
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
    #: What forecasts derive from the fit alone, computed once (:meth:`derived`); the
    #: flattened draws of a variable are keyed by the variable object they came from, so a
    #: variable replaced in ``posterior`` is flattened again. Kept on the fit, not in
    #: :func:`forecast.data.memo.per_dataset`, whose small shared table a forecast's fifty
    #: posterior variables would keep emptying.
    _memo: dict[Any, Any] = field(default_factory=dict, init=False, repr=False,
                                  compare=False)

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
        variable = self.posterior.variables[name]
        source, flat = self._memo.get(("stacked", name), (None, None))
        if source is not variable:
            values = self.posterior[name]
            rest = [dim for dim in values.dims if dim not in ("chain", "draw")]
            array = values.transpose("chain", "draw", *rest).values
            flat = array.reshape((-1, *array.shape[2:]))
            self._memo[("stacked", name)] = (variable, flat)
        return flat.copy() if pick is None else flat[pick]

    def __getstate__(self) -> dict[str, Any]:
        # A pickled fit (sent to a Dask worker) leaves what forecasts derived behind: the
        # worker derives it again rather than receive the flat copies of the posterior.
        return {**self.__dict__, "_memo": {}}

    def derived(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        """``compute()``, once per fit: something every forecast derives from the fit's data
        alone (a fit does not change once made). The value is shared: do not modify it."""
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]

    def effective_samples(self) -> float:
        """The bulk ESS a forecast's Monte Carlo error counts: the fit's smallest, or that
        of the draws kept when the fit was thinned for shipping (never more)."""
        ess = float(self.diagnostics()["min_ess_bulk"])
        kept = self.meta.get("shipped", {}).get("min_ess_bulk_kept")
        return ess if kept is None else min(ess, float(kept))

    def draw_index(self, draws: int | None, rng: np.random.Generator) -> np.ndarray:
        """Posterior samples behind ``draws`` paths (:func:`draw_index`)."""
        return draw_index(self.n_samples, draws, rng)

    @property
    def n_samples(self) -> int:
        return int(self.posterior.sizes["chain"] * self.posterior.sizes["draw"])

    def inference_data(self) -> Any:
        """The whole ArviZ InferenceData of the fit (posterior, sample_stats, observed_data,
        log_likelihood), read from ``posterior.nc`` for a loaded fit (checked against its
        checksum first when the fit was loaded with checksums)."""
        if self.idata is None:
            if self.directory is None:
                raise FitError(f"{self.model_name} fit: no InferenceData in memory or on disk")
            import arviz as az

            if not (self.directory / "posterior.nc").exists() and (
                    self.directory / "inference_posterior_layout.json").exists():
                self.idata = self._thinned_inference_data()
                return self.idata
            path = self.directory / "posterior.nc"
            checksums = getattr(self, "_stored_checksums", None)
            fastio.verify_file(path, None if checksums is None else checksums.get(path.name))
            try:
                self.idata = az.from_netcdf(path)
            except fastio.UNREADABLE as exc:
                raise FitError(f"{path}: unreadable ({type(exc).__name__}: {exc})"[:300]) from None
        return self.idata

    def _thinned_inference_data(self) -> Any:
        """The InferenceData of a shipped fit: its forecast posterior with the other free
        variables, log likelihood, sampler statistics and observed data it keeps for checks
        (all thinned alike).
        """
        import arviz as az

        checksums = getattr(self, "_stored_checksums", None)
        groups = {}
        for group in ("posterior", "log_likelihood", "sample_stats", "observed_data"):
            values = fastio.load_posterior(self.directory, checksums, stem=f"inference_{group}")
            if values is None and (self.directory / f"inference_{group}.npz").exists():
                raise fastio.damaged(self.directory / f"inference_{group}.npz", "unreadable")
            if values is not None:
                groups[group] = values
        groups["posterior"] = xr.merge([self.posterior, groups.get("posterior", xr.Dataset())])
        return az.InferenceData(**groups)

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
        if idata is None and self.directory is not None:
            # A loaded fit saved again (a refit reusing it) keeps every group it was stored with.
            idata = self.inference_data()
        if idata is None:
            idata = az.InferenceData(posterior=self.posterior)
        groups = [group for group in STORED_GROUPS if group in idata.groups()]
        # Uncompressed: draws of continuous parameters barely compress, and zlib would cost
        # time on every refit's writing.
        for group in groups:
            for variable in getattr(idata, group).variables.values():
                variable.encoding.pop("zlib", None)
                variable.encoding.pop("complevel", None)
        idata.to_netcdf(str(path), groups=groups, engine="h5netcdf", compress=False)

    @classmethod
    def load(cls, path: str | Path, checksums: Mapping[str, str] | None = None) -> Fitted:
        """Load a fit saved by :meth:`save`.

        Parameters
        ----------
        path
            The fit's directory.
        checksums
            SHA-256 of each file of the directory (file name to hex digest), as the fit store
            records them at publish: every file is checked before it is used. A damaged fast
            copy (``.npz``) is named in a warning and the archival file read instead, which
            must pass its own check; any other damaged file refuses the fit. None (a fit saved
            outside the store, or before checksums were recorded) checks nothing.

        Raises
        ------
        FitError
            When the directory holds no fit, a fit of another model or version, or a damaged
            or unreadable file (named in the message).
        """
        directory = Path(path)
        header = _read_config(directory, checksums)
        name, version = header.get("model_name"), header.get("model_version")
        if name != cls.model_name:
            raise FitError(f"{directory}: holds a {name!r} fit, expected {cls.model_name!r}")
        if version != cls.model_version:
            raise FitError(
                f"{directory}: written by {name} model version {version}, this code reads "
                f"version {cls.model_version}; re-fit (python cli.py refit)"
            )
        if checksums is not None:
            # Files no forecast reads are checked too: a fit damaged anywhere is refused.
            for unread in ("posterior.nc", *(f"data_{key}.parquet" for key in header["data_keys"])):
                fastio.verify_file(directory / unread, checksums.get(unread))
        fitted = cls(posterior=_load_posterior(directory, header, checksums),
                     data=_load_frames(directory, header, checksums), config=header["config"],
                     summary_table=_load_summary(directory, checksums), meta=header["meta"],
                     directory=directory)
        fitted._stored_checksums = checksums  # for reading posterior.nc later
        return fitted


#: The keys ``config.json`` must hold, with their types.
_CONFIG_KEYS = {"config": dict, "meta": dict, "data_keys": list, "posterior_vars": list}


def _read_config(directory: Path, checksums: Mapping[str, str] | None = None) -> dict[str, Any]:
    """``config.json`` of a saved fit, checked against its digest when one is given."""
    path = directory / "config.json"
    if checksums is None and not path.exists():
        raise FitError(f"{directory}: no config.json: not a saved fit")
    raw = fastio.read_verified(path, None if checksums is None else checksums.get(path.name))
    try:
        header = json.loads(raw)
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError
        raise FitError(f"{path}: corrupt ({getattr(exc, 'msg', None) or exc})") from None
    wrong = [key for key, kind in _CONFIG_KEYS.items()
             if not isinstance(header, dict) or not isinstance(header.get(key), kind)]
    if wrong:
        raise FitError(f"{path}: corrupt (no valid {', '.join(wrong)})")
    return header


def _load_posterior(directory: Path, header: Mapping[str, Any],
                    checksums: Mapping[str, str] | None) -> xr.Dataset:
    """The fast copy when it is there and sound, else ``posterior.nc`` (checked first)."""
    posterior = fastio.load_posterior(directory, checksums)
    if posterior is not None:
        return posterior
    path = directory / "posterior.nc"
    fastio.verify_file(path, None if checksums is None else checksums.get(path.name))
    try:
        with xr.open_dataset(path, group="posterior", engine="h5netcdf") as stored:
            return stored[header["posterior_vars"]].load()
    except fastio.UNREADABLE as exc:
        raise FitError(f"{path}: unreadable ({type(exc).__name__}: {exc})"[:300]) from None


def _load_frames(directory: Path, header: Mapping[str, Any],
                 checksums: Mapping[str, str] | None) -> dict[str, pd.DataFrame]:
    """The fast copy when it is there and sound, else the Parquet files (checked first)."""
    data = fastio.load_frames(directory, header["data_keys"], checksums)
    if data is not None:
        return data
    frames = {}
    for key in header["data_keys"]:
        path = directory / f"data_{key}.parquet"
        fastio.verify_file(path, None if checksums is None else checksums.get(path.name))
        try:
            frames[key] = pd.read_parquet(path)
        except fastio.UNREADABLE as exc:
            raise FitError(f"{path}: unreadable ({type(exc).__name__}: {exc})"[:300]) from None
    return frames


def _load_summary(directory: Path, checksums: Mapping[str, str] | None) -> pd.DataFrame:
    """``summary.csv`` (checked first)."""
    path = directory / "summary.csv"
    raw = fastio.read_verified(path, None if checksums is None else checksums.get(path.name))
    try:
        return pd.read_csv(io.BytesIO(raw))
    except fastio.UNREADABLE as exc:
        raise FitError(f"{path}: unreadable ({type(exc).__name__}: {exc})"[:300]) from None
