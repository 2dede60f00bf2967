"""M2 price erosion: hierarchical decay of price per chip-hour, with a market cycle.

Model
-----
For observation i of chip c (vendor v), pricing type k, at age a_i years since the chip's
launch and calendar quarter t_i::

    market price:  log P_i = alpha_c + offset_k + d_v * a_i + z_t + e_i
    list price:    log P_i = alpha_c + offset_k + premium + g * a_i + e_i

- ``alpha_c``: log launch price of chip c, on demand at market (neocloud) level.
- ``premium``: how far a hyperscaler's list price sits above the market price at launch.
- ``g``: the slow drift of list prices with age, one rate for all vendors.
- ``d_v``: vendor decay of log price per year of age, partially pooled:
  ``d_v = d_mu + tau * eta_v``. ``d_mu``'s prior is anchored on the published fall in cost per
  FLOP of 25-30% a year (Epoch AI: FLOP/s per dollar doubles every 2.1-2.5 years), i.e. a log
  change of about -0.30 a year. A vendor with no price history (AMD) gets a draw from the
  population, so its uncertainty is honest rather than borrowed from NVIDIA.
- ``z_t``: a market-wide mean-reverting deviation around the trend, an AR(1) over calendar
  quarters (non-centred), projected to have no level and no linear trend over the fitted
  window (:func:`detrend_matrix`). Without that constraint a cycle and a decay explain the
  same H100 quotes equally well and NUTS crawls along the ridge; with it the trend belongs to
  ``d`` and the level to the launch prices, and ``z`` keeps only the boom and bust (2023 peak,
  2024-25 fall). A forecast's deviation decays back towards the trend at ``rho`` a quarter.
- ``e_i``: Student-t noise (nu = 4), one scale for list prices and one for market prices:
  providers differ, and a few extreme quotes must not drag the fit.

Pricing types: list prices move rarely and in steps
----------------------------------------------------
Hyperscaler list prices (on-demand, 1- and 3-year commitments) stay flat for years and then
move in one cut; marketplace, spot, capacity-block and index prices move continuously. Only a
hyperscaler's (AWS, Google Cloud, Azure, Oracle) on-demand and commitment prices are list
prices; a neocloud's on-demand price (Lambda, RunPod, ...) moves with the market. Two choices
make this explicit:

1. *A held price is one observation.* For each (chip, provider, pricing type), a price equal to
   that series' previous observation is dropped (:func:`collapse_held_prices`): an AWS H100 at
   $12.29 seen in 2023 and again in 2025 is one piece of evidence, not two, so a flat list
   price cannot outvote the market.
2. *List prices have their own drift and no cycle.* List prices drift with age at one rate
   ``g`` shared by all vendors (their moves are pricing policy, and they barely moved in the
   data) and do not load on the market cycle. The vendor decay ``d_v`` is therefore identified
   by market prices only: a list price held high says nothing about what a chip-hour costs on
   the market. (A first version let list prices pass through a fraction of ``d_v``; list
   prices that rose slightly with age then dragged NVIDIA's market decay above zero, and the
   product of the fraction and ``d_v`` sampled slowly.)

Chips with any list price have their *list* level as the free parameter and their market
level derived as list level minus the premium. Most observations are list prices, so the
list level is what the data pin down; parameterised the other way round every chip's
intercept forms a ridge with the premium and NUTS mixes slowly. For the same reason the free
level is the level at the chip's mean observed age, not at launch (an intercept far from
the data correlates with the slope); the launch price is derived from it.

Each non-reference pricing type has its own offset ``offset_k`` (commitments sit below
on-demand; the data identify them well, so the prior is wide).

Prices of chips with no history (Trainium2, Trainium3, future chips) come from scenario inputs
as a launch price (or a ratio to a predecessor) and then follow the fitted vendor decay: see
:meth:`FittedPriceModel.forecast`.

Priors (defaults; every one can be overridden from a scenario's ``[priors.price]``)
-----------------------------------------------------------------------------------
=============  =================================  =========================================
parameter      default                            why
=============  =================================  =========================================
decay_mu       Normal(-0.30, 0.15) per year       Epoch AI 25-30%/yr fall in cost per FLOP
decay_tau      HalfNormal(0.15)                   vendors differ by about +-15%/yr
launch_price   Normal(1.0, 1.0) log USD/chip-h    e^1 = $2.7/h; 95% range $0.4-$19/h
type_offset    Normal(-0.3, 0.5)                  commitments and spot sit below on-demand
list_premium   Normal(0.5, 0.5)                   hyperscaler list above market at launch
list_drift     Normal(0, 0.1) per year            list prices barely move between cuts
cycle_rho      Beta(6, 2) per quarter             cycles last a few quarters to a few years
cycle_sigma    HalfNormal(0.15) per quarter       H100 market price halved in about 18 months
noise_list     HalfNormal(0.3)                    provider spread of list prices
noise_market   HalfNormal(0.5)                    wider spread of market quotes
=============  =================================  =========================================
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd
import xarray as xr

from forecast.core.errors import ForecastError
from forecast.data.dataset import Dataset
from forecast.data.hashing import content_digest
from forecast.models.base import (
    DEFAULT_SAMPLER,
    FittedModel,
    count_divergences,
    merge_priors,
    posterior_summary,
    prior,
    run_sampler,
)

REFERENCE_TYPE = "on-demand"
LIST_TYPES = ("on-demand", "1-year commitment", "3-year commitment")
#: Providers whose on-demand and commitment prices are published list prices. Neocloud
#: on-demand prices (Lambda, RunPod, ...) move with the market and are not list prices.
HYPERSCALER_PATTERN = r"Amazon|AWS|Google|GCP|Microsoft|Azure|Oracle"
VENDORS = ("nvidia", "amd", "google", "aws", "other_custom", "other")
DAYS_PER_YEAR = 365.25

DEFAULT_PRIORS: dict[str, dict[str, Any]] = {
    "decay_mu": {"dist": "normal", "mu": -0.30, "sigma": 0.15},
    "decay_tau": {"dist": "halfnormal", "sigma": 0.15},
    "launch_price": {"dist": "normal", "mu": 1.0, "sigma": 1.0},
    "type_offset": {"dist": "normal", "mu": -0.3, "sigma": 0.5},
    "list_premium": {"dist": "normal", "mu": 0.5, "sigma": 0.5},
    "list_drift": {"dist": "normal", "mu": 0.0, "sigma": 0.1},
    "cycle_rho": {"dist": "beta", "alpha": 6.0, "beta": 2.0},
    "cycle_sigma": {"dist": "halfnormal", "sigma": 0.15},
    "noise_list": {"dist": "halfnormal", "sigma": 0.3},
    "noise_market": {"dist": "halfnormal", "sigma": 0.5},
}

NOISE_DOF = 4.0

#: nutpie reached bulk ESS >= 400 on every parameter in a third of PyMC's NUTS time on the
#: shipped data (benchmarks/bench_price.py); decay_mu mixes slowest (ESS ~0.19 per draw), so
#: 3,000 draws a chain.
PRICE_SAMPLER = {"nuts_sampler": "nutpie", "draws": 3000, "tune": 1000}


# --------------------------------------------------------------------------- pure math


def ar1_loading_matrix(rho: Any, n: int) -> Any:
    """Matrix L with ``z = sigma * L @ eps`` a stationary AR(1) path for standard normal eps.

    ``L[t, s] = rho**(t - s)`` for ``s <= t`` (0 above the diagonal), with the first column
    divided by ``sqrt(1 - rho**2)`` so that ``z_0`` starts from the stationary distribution.
    Works on numpy arrays and PyTensor tensors alike (only arithmetic is used).
    """
    t = np.arange(n)[:, None]
    s = np.arange(n)[None, :]
    lag = np.maximum(t - s, 0)
    lower = (t >= s).astype(float)
    first = np.zeros((1, n))
    first[0, 0] = 1.0
    powers = rho**lag * lower
    scale = 1.0 + first * ((1.0 - rho**2) ** -0.5 - 1.0)
    return powers * scale


def detrend_matrix(n: int) -> np.ndarray:
    """Projection removing a constant and a linear trend from a length-``n`` series."""
    design = np.column_stack([np.ones(n), np.arange(n) - (n - 1) / 2])
    return np.eye(n) - design @ np.linalg.solve(design.T @ design, design.T)


def log_price_mean(
    launch_log_price: np.ndarray,
    type_offset: np.ndarray,
    slope: np.ndarray,
    age_years: np.ndarray,
    cycle_loading: np.ndarray,
    cycle: np.ndarray,
) -> np.ndarray:
    """Mean log price: ``alpha + offset + slope * age + loading * z`` (broadcasting)."""
    return launch_log_price + type_offset + slope * age_years + cycle_loading * cycle


def annual_change(decay: np.ndarray) -> np.ndarray:
    """Fractional change per year of a log-price slope: ``exp(d) - 1`` (-0.26 for d=-0.30)."""
    return np.expm1(decay)


def collapse_held_prices(prices: pd.DataFrame) -> pd.DataFrame:
    """Drop observations that repeat the previous price of the same provider series.

    A series is (chip, provider_or_index, pricing_type); within it, sorted by date, a row whose
    price equals the previous row's is dropped: a held list price is one observation.
    """
    ordered = prices.sort_values(["chip", "provider_or_index", "pricing_type", "date"],
                                 kind="stable")
    keys = ["chip", "provider_or_index", "pricing_type"]
    previous = ordered.groupby(keys, observed=True)["usd_per_chip_hour"].shift(1)
    kept = ordered[~np.isclose(ordered["usd_per_chip_hour"], previous)]
    return kept.sort_values(["chip", "date"], kind="stable").reset_index(drop=True)


def price_class(pricing_type: pd.Series, provider: pd.Series) -> np.ndarray:
    """"list" for a hyperscaler's on-demand or commitment price, else "market"."""
    hyperscaler = provider.str.contains(HYPERSCALER_PATTERN, regex=True)
    return np.where(pricing_type.isin(LIST_TYPES) & hyperscaler, "list", "market")


def simulate_ar1(rho: np.ndarray, sigma: np.ndarray, start: np.ndarray, steps: int,
                 rng: np.random.Generator) -> np.ndarray:
    """AR(1) paths continuing from ``start`` (shape (draws,)); returns (draws, steps)."""
    draws = np.asarray(start).shape[0]
    paths = np.empty((draws, steps))
    current = np.asarray(start, dtype=float)
    for step in range(steps):
        current = rho * current + sigma * rng.standard_normal(draws)
        paths[:, step] = current
    return paths


# --------------------------------------------------------------------------- data preparation


@dataclass(frozen=True)
class PriceData:
    """Observations arranged for the model, with the index maps that decode them."""

    observations: pd.DataFrame
    chips: tuple[str, ...]
    vendors: tuple[str, ...]
    pricing_types: tuple[str, ...]
    quarters: pd.PeriodIndex


def prepare_price_data(dataset: Dataset) -> PriceData:
    """Observations with age, vendor, pricing class and quarter index; held prices collapsed."""
    prices = collapse_held_prices(dataset.rental_prices)
    catalogue = dataset.accelerators.set_index("chip")
    frame = prices[["date", "chip", "provider_or_index", "pricing_type", "usd_per_chip_hour",
                    "recalled"]].copy()
    frame["pricing_type"] = frame["pricing_type"].astype(str)
    frame["vendor_group"] = catalogue.loc[frame["chip"], "vendor_group"].to_numpy()
    release = catalogue.loc[frame["chip"], "release_date"].to_numpy()
    # Quotes dated before the catalogue's release month (pre-orders, early access) are age 0.
    frame["age_years"] = np.maximum((frame["date"].to_numpy() - release)
                                    / np.timedelta64(1, "D") / DAYS_PER_YEAR, 0.0)
    frame["price_class"] = price_class(frame["pricing_type"], frame["provider_or_index"])
    frame["log_price"] = np.log(frame["usd_per_chip_hour"])
    frame["quarter"] = frame["date"].dt.to_period("Q")
    # The cycle only loads on market prices, so it spans the quarters that have them: a window
    # reaching back into list-only years would let the detrended cycle still carry a trend
    # over the market years.
    market_quarters = frame.loc[frame["price_class"] == "market", "quarter"]
    quarters = pd.period_range(market_quarters.min(), frame["quarter"].max(), freq="Q")
    types = (REFERENCE_TYPE,) + tuple(sorted(set(frame["pricing_type"]) - {REFERENCE_TYPE}))
    return PriceData(
        observations=frame.reset_index(drop=True),
        chips=tuple(sorted(set(frame["chip"]))),
        vendors=VENDORS,
        pricing_types=types,
        quarters=quarters,
    )


def identified_market_vendors(observations: pd.DataFrame) -> list[str]:
    """Vendors with market prices of one chip at two or more ages.

    Only their decay is identified by data when every chip has its own level; the other
    vendors' decay rates are draws from the population.
    """
    market = observations[observations["price_class"] == "market"]
    ages_per_chip = market.groupby("chip")["age_years"].nunique()
    chips = set(ages_per_chip[ages_per_chip >= 2].index)
    return sorted(set(market.loc[market["chip"].isin(chips), "vendor_group"]))


# --------------------------------------------------------------------------- PyMC builder


def build_price_model(data: PriceData, priors: Mapping[str, Mapping[str, Any]]) -> Any:
    """The PyMC model of the module docstring for prepared ``data`` and complete ``priors``."""
    import pymc as pm
    import pytensor.tensor as pt

    obs = data.observations
    chip_idx = obs["chip"].map({c: i for i, c in enumerate(data.chips)}).to_numpy()
    vendor_idx = obs["vendor_group"].map({v: i for i, v in enumerate(data.vendors)}).to_numpy()
    type_idx = obs["pricing_type"].map({k: i for i, k in enumerate(data.pricing_types)}).to_numpy()
    # List prices before the cycle window do not load on it; clip their index into range.
    quarter_idx = np.clip((obs["quarter"] - data.quarters[0]).map(lambda o: o.n).to_numpy(),
                          0, len(data.quarters) - 1)
    is_market = (obs["price_class"] == "market").to_numpy().astype(float)
    ref_age = obs.groupby("chip")["age_years"].mean().reindex(list(data.chips)).to_numpy()
    vendor_of_chip = obs.drop_duplicates("chip").set_index("chip")["vendor_group"]
    chip_vendor_idx = np.array([data.vendors.index(vendor_of_chip[c]) for c in data.chips])
    listed_chips = set(obs.loc[obs["price_class"] == "list", "chip"])
    has_list = np.array([chip in listed_chips for chip in data.chips], dtype=float)
    coords = {
        "chip": list(data.chips),
        "vendor": list(data.vendors),
        "offset_type": list(data.pricing_types[1:]),
        "quarter": [str(q) for q in data.quarters],
        "obs": np.arange(len(obs)),
    }
    with pm.Model(coords=coords) as model:
        decay_mu = prior("decay_mu", priors["decay_mu"])
        decay_tau = prior("decay_tau", priors["decay_tau"])
        # Non-centred: with one vendor rich in market prices and the rest prior-only, a centred
        # form diverges in the funnel as decay_tau shrinks (tried: 18-46 divergences).
        decay_eta = pm.Normal("decay_eta", 0.0, 1.0, dims="vendor")
        decay = pm.Deterministic("decay", decay_mu + decay_tau * decay_eta, dims="vendor")
        level = prior("price_level", priors["launch_price"], dims="chip")
        offsets = prior("type_offset", priors["type_offset"], dims="offset_type")
        offset_all = pt.concatenate([pt.zeros(1), offsets])
        list_premium = prior("list_premium", priors["list_premium"])
        list_drift = prior("list_drift", priors["list_drift"])
        # The free level is each chip's list level (market level for market-only chips) at its
        # mean observed age; the launch market price follows (see the module docstring).
        chip_slope = has_list * list_drift + (1.0 - has_list) * decay[chip_vendor_idx]
        launch = pm.Deterministic(
            "launch_log_price", level - has_list * list_premium - chip_slope * ref_age,
            dims="chip")
        rho = prior("cycle_rho", priors["cycle_rho"])
        cycle_sigma = prior("cycle_sigma", priors["cycle_sigma"])
        cycle_eps = pm.Normal("cycle_eps", 0.0, 1.0, dims="quarter")
        loading = ar1_loading_matrix(rho, len(data.quarters))
        projection = detrend_matrix(len(data.quarters))
        cycle = pm.Deterministic(
            "cycle", cycle_sigma * pt.dot(projection, pt.dot(loading, cycle_eps)),
            dims="quarter")
        noise_list = prior("noise_list", priors["noise_list"])
        noise_market = prior("noise_market", priors["noise_market"])

        slope = is_market * decay[vendor_idx] + (1.0 - is_market) * list_drift
        level = launch[chip_idx] + offset_all[type_idx] + (1.0 - is_market) * list_premium
        mu = log_price_mean(level, 0.0, slope, obs["age_years"].to_numpy(), is_market,
                            cycle[quarter_idx])
        sigma = is_market * noise_market + (1.0 - is_market) * noise_list
        pm.StudentT("log_price", nu=NOISE_DOF, mu=mu, sigma=sigma,
                    observed=obs["log_price"].to_numpy(), dims="obs")
    return model


SUMMARY_VARS = ["decay_mu", "decay_tau", "decay", "launch_log_price", "type_offset", "list_premium",
                "list_drift",
                "cycle_rho", "cycle_sigma", "noise_list", "noise_market"]


# --------------------------------------------------------------------------- model classes


class PriceModel:
    """Configuration of the price-erosion model; :meth:`fit` returns a fitted model.

    Parameters
    ----------
    priors
        Overrides of :data:`DEFAULT_PRIORS`, e.g. a scenario's ``[priors.price]`` table.
    sampler
        Overrides of the sampler settings (draws, tune, chains, target_accept, nuts_sampler,
        random_seed, progressbar).
    """

    name = "price"

    def __init__(self, priors: Mapping[str, Any] | None = None,
                 sampler: Mapping[str, Any] | None = None):
        self.priors = merge_priors(DEFAULT_PRIORS, priors, self.name)
        self.sampler = {**DEFAULT_SAMPLER, **PRICE_SAMPLER, **(sampler or {})}

    def fit(self, dataset: Dataset, **sampler: Any) -> FittedPriceModel:
        """Fit to ``dataset.rental_prices``; keyword arguments override sampler settings."""
        settings = {**self.sampler, **sampler}
        data = prepare_price_data(dataset)
        if len(data.observations) < 10:
            raise ForecastError(f"price model: {len(data.observations)} price observations, "
                                "need at least 10")
        model = build_price_model(data, self.priors)
        # Same data and priors, same compiled sampler (a warm refit skips the compile).
        key = "price-" + content_digest({"data": data, "priors": self.priors,
                                         "version": FittedPriceModel.model_version})
        idata, seconds = run_sampler(model, settings, cache_key=key)
        keep = [name for name in idata.posterior.data_vars
                if name not in ("cycle_eps", "price_level", "decay_eta", "decay_informed")]
        summary = posterior_summary(idata, SUMMARY_VARS)
        meta = {
            "divergences": count_divergences(idata),
            "fit_seconds": round(seconds, 2),
            "data_hash": dataset.data_hash,
            "as_of": str(dataset.as_of_date) if dataset.as_of_date is not None else None,
            "n_observations": len(data.observations),
            "quarters": [str(q) for q in data.quarters],
        }
        config = {"priors": self.priors, "sampler": settings}
        catalogue = dataset.accelerators[["chip", "vendor", "vendor_group", "release_date",
                                          "fp8_dense_tflops", "bf16_dense_tflops"]]
        return FittedPriceModel(
            posterior=idata.posterior[keep],
            data={"observations": data.observations, "catalogue": catalogue.copy()},
            config=config,
            summary_table=summary,
            meta=meta,
        )


class FittedPriceModel(FittedModel):
    """A fitted price-erosion model: posterior, data, diagnostics, forecasts."""

    model_name: ClassVar[str] = "price"
    model_version: ClassVar[str] = "1"

    def decay_table(self, interval: float = 0.9) -> pd.DataFrame:
        """Posterior annual price change per vendor (median and interval), as fractions."""
        decay = self.stacked("decay")
        vendors = [str(v) for v in self.posterior["vendor"].values]
        lower, upper = (1 - interval) / 2, 1 - (1 - interval) / 2
        change = annual_change(decay)
        identified = set(identified_market_vendors(self.data["observations"]))
        return pd.DataFrame({
            "vendor": vendors,
            "annual_change_median": np.median(change, axis=0),
            f"annual_change_p{lower * 100:g}": np.quantile(change, lower, axis=0),
            f"annual_change_p{upper * 100:g}": np.quantile(change, upper, axis=0),
            # False: no market prices of one chip at two ages, so the rate is a prior draw.
            "identified_by_data": [v in identified for v in vendors],
        })

    def predict_observations(self, frame: pd.DataFrame, draws: int = 1000,
                             seed: int = 0) -> np.ndarray:
        """Posterior predictive samples of observed prices (draws x rows), USD per chip-hour.

        ``frame`` has the rental-price columns (date, chip, provider_or_index, pricing_type),
        e.g. observations after a backtest cut-off. Chips and pricing types must have been
        fitted. Includes the cycle (simulated forward past the fitted window) and the
        Student-t observation noise of the row's price class.
        """
        rng = np.random.default_rng(seed)
        pick = rng.integers(0, self.n_samples, size=draws)
        fitted_chips = [str(c) for c in self.posterior["chip"].values]
        types = [REFERENCE_TYPE] + [str(t) for t in self.posterior["offset_type"].values]
        unknown = sorted(set(frame["chip"]) - set(fitted_chips))
        unknown_types = sorted(set(frame["pricing_type"].astype(str)) - set(types))
        if unknown or unknown_types:
            raise ForecastError(f"no fitted parameters for chips {unknown} / pricing types "
                                f"{unknown_types}")
        catalogue = self.data["catalogue"].set_index("chip")
        vendors = [str(v) for v in self.posterior["vendor"].values]
        fitted_quarters = pd.PeriodIndex(self.meta["quarters"], freq="Q")
        quarters = frame["date"].dt.to_period("Q")
        steps = max(0, (quarters.max() - fitted_quarters[-1]).n)
        cycle_fit = self.stacked("cycle", pick)
        future = simulate_ar1(self.stacked("cycle_rho", pick), self.stacked("cycle_sigma", pick),
                              cycle_fit[:, -1], steps, rng)
        cycle_all = np.concatenate([cycle_fit, future], axis=1)
        cycle_idx = np.clip([(q - fitted_quarters[0]).n for q in quarters], 0,
                            cycle_all.shape[1] - 1)

        is_market = price_class(frame["pricing_type"].astype(str),
                                frame["provider_or_index"]) == "market"
        chip_idx = [fitted_chips.index(c) for c in frame["chip"]]
        vendor_idx = [vendors.index(catalogue.loc[c, "vendor_group"]) for c in frame["chip"]]
        release = catalogue.loc[frame["chip"], "release_date"].to_numpy()
        age = np.maximum((frame["date"].to_numpy() - release) / np.timedelta64(1, "D")
                         / DAYS_PER_YEAR, 0.0)
        offsets_fit = np.concatenate([np.zeros((draws, 1)),
                                      self.stacked("type_offset", pick)], axis=1)
        type_idx = [types.index(t) for t in frame["pricing_type"].astype(str)]
        slope = np.where(is_market[None, :], self.stacked("decay", pick)[:, vendor_idx],
                         self.stacked("list_drift", pick)[:, None])
        level = (self.stacked("launch_log_price", pick)[:, chip_idx] + offsets_fit[:, type_idx]
                 + np.where(is_market[None, :], 0.0,
                            self.stacked("list_premium", pick)[:, None]))
        mean = log_price_mean(level, 0.0, slope, age[None, :], is_market[None, :].astype(float),
                              cycle_all[:, cycle_idx])
        scale = np.where(is_market[None, :], self.stacked("noise_market", pick)[:, None],
                         self.stacked("noise_list", pick)[:, None])
        noise = scale * rng.standard_t(NOISE_DOF, size=mean.shape)
        return np.exp(mean + noise)

    def forecast(
        self,
        quarters: Sequence[str] | pd.PeriodIndex,
        chips: Sequence[str] | None = None,
        draws: int = 1000,
        seed: int = 0,
        basis: str = "market",
        pricing_type: str = REFERENCE_TYPE,
        launch_prices: Mapping[str, Any] | None = None,
        new_chips: pd.DataFrame | None = None,
        utilisation: Mapping[str, Any] | None = None,
    ) -> xr.Dataset:
        """Sample paths of price per chip-hour (and cost per effective PFLOP-hour).

        Parameters
        ----------
        quarters
            Calendar quarters to forecast ("2026Q1", ...), at or after the first fitted quarter.
        chips
            Catalogue chips (default: every chip with price history). Chips without history
            need an entry in ``launch_prices``.
        draws, seed
            Number of sample paths and the random seed (posterior draws are resampled).
        basis
            "market" (neocloud and marketplace level: full decay and the market cycle) or
            "list" (a hyperscaler's list price: the list premium, sticky decay, no cycle).
        pricing_type
            "on-demand" (default) or another fitted pricing type, whose offset is applied.
        launch_prices
            chip -> price per chip-hour at launch, at the forecast's basis (scalar or array of
            ``draws``), for chips with no price history, e.g. Trainium3 from scenario inputs.
        new_chips
            Rows (chip, vendor_group, release_date, fp8_dense_tflops, bf16_dense_tflops) for
            chips not in the catalogue (future chips from scenario inputs).
        utilisation
            vendor_group -> model-FLOP utilisation (scalar or ``draws`` array); when given, the
            result also holds ``cost_per_pflop_hour`` (FP8 where available, else BF16).

        Returns
        -------
        xarray.Dataset with ``price`` (draw, quarter, chip) in USD per chip-hour, NaN before a
        chip's launch, and optionally ``cost_per_pflop_hour``.
        """
        from forecast.economics.chips import cost_per_effective_pflop_hour

        if draws <= 0:
            raise ForecastError(f"draws must be > 0, got {draws}")
        rng = np.random.default_rng(seed)
        periods = pd.PeriodIndex(quarters, freq="Q")
        fitted_quarters = pd.PeriodIndex(self.meta["quarters"], freq="Q")
        if periods.min() < fitted_quarters[0]:
            raise ForecastError(f"forecast quarters start before the fitted market-price "
                                f"window ({fitted_quarters[0]})")
        catalogue = self.data["catalogue"]
        if new_chips is not None:
            catalogue = pd.concat([catalogue, new_chips], ignore_index=True)
        catalogue = catalogue.drop_duplicates("chip", keep="last").set_index("chip")
        fitted_chips = [str(c) for c in self.posterior["chip"].values]
        chips = list(chips) if chips is not None else fitted_chips
        launch_prices = dict(launch_prices or {})
        for chip in chips:
            if chip not in catalogue.index:
                raise ForecastError(f"chip {chip!r} is not in the catalogue or new_chips")
            if chip not in fitted_chips and chip not in launch_prices:
                raise ForecastError(f"chip {chip!r} has no price history: give launch_prices")

        pick = rng.integers(0, self.n_samples, size=draws)
        vendors = [str(v) for v in self.posterior["vendor"].values]
        decay = self.stacked("decay", pick)
        launch = self.stacked("launch_log_price", pick)
        rho = self.stacked("cycle_rho", pick)
        cycle_sigma = self.stacked("cycle_sigma", pick)
        list_drift = self.stacked("list_drift", pick)
        types = [REFERENCE_TYPE] + [str(t) for t in self.posterior["offset_type"].values]
        if basis not in ("market", "list"):
            raise ForecastError(f"basis must be 'market' or 'list', got {basis!r}")
        if pricing_type not in types:
            raise ForecastError(f"pricing type {pricing_type!r}: fitted types are "
                                f"{', '.join(types)}")
        offsets = np.zeros(draws)
        if pricing_type != REFERENCE_TYPE:
            offsets = self.stacked("type_offset", pick)[:, types.index(pricing_type) - 1]
        is_market = basis == "market"
        if not is_market:
            offsets = offsets + self.stacked("list_premium", pick)


        # Cycle paths: continue the last fitted deviation, reverting at rho per quarter.
        cycle_fit = self.stacked("cycle", pick)
        steps = max(0, (periods.max() - fitted_quarters[-1]).n)
        future = simulate_ar1(rho, cycle_sigma, cycle_fit[:, -1], steps, rng)
        cycle_all = np.concatenate([cycle_fit, future], axis=1)
        cycle_index = np.array([(p - fitted_quarters[0]).n for p in periods])
        cycle = cycle_all[:, cycle_index] if is_market else np.zeros((draws, len(periods)))

        quarter_mid = (periods.start_time + (periods.end_time - periods.start_time) / 2)
        prices = np.full((draws, len(periods), len(chips)), np.nan)
        for j, chip in enumerate(chips):
            row = catalogue.loc[chip]
            d = decay[:, vendors.index(row["vendor_group"])] if is_market else list_drift
            age = ((quarter_mid - pd.Timestamp(row["release_date"])).days / DAYS_PER_YEAR)
            age = np.asarray(age, dtype=float)
            if chip in fitted_chips:
                base = launch[:, fitted_chips.index(chip)] + offsets
            else:
                base = np.log(np.broadcast_to(np.asarray(launch_prices[chip], float), (draws,)))
            log_price = log_price_mean(base[:, None], 0.0, d[:, None],
                                       np.maximum(age, 0.0)[None, :], 1.0, cycle)
            prices[:, :, j] = np.where(age[None, :] >= 0, np.exp(log_price), np.nan)

        coords = {"draw": np.arange(draws), "quarter": [str(p) for p in periods], "chip": chips}
        result = xr.Dataset({"price": (("draw", "quarter", "chip"), prices)}, coords=coords)
        result["price"].attrs.update(unit="USD per chip-hour", basis=basis,
                                     pricing_type=pricing_type)
        if utilisation is not None:
            tflops = catalogue.loc[chips, "fp8_dense_tflops"].fillna(
                catalogue.loc[chips, "bf16_dense_tflops"]).to_numpy(float)
            util = np.stack([np.broadcast_to(np.asarray(utilisation[catalogue.loc[c,
                             "vendor_group"]], float), (draws,)) for c in chips], axis=1)
            cost = cost_per_effective_pflop_hour(prices, tflops[None, None, :], util[:, None, :])
            result["cost_per_pflop_hour"] = (("draw", "quarter", "chip"), cost)
            result["cost_per_pflop_hour"].attrs["unit"] = "USD per effective PFLOP-hour"
        return result


# --------------------------------------------------------------------------- cross-check


def ols_cross_check(dataset: Dataset) -> Any:
    """Frequentist cross-check: OLS of log price on age by vendor, statsmodels results.

    Same design as the Bayesian model without pooling and without the cycle: chip and pricing
    type fixed effects, a list-price premium, a market-price slope per vendor
    (``age_market:C(vendor_group)``) and one common slope for list prices. Standard errors are
    heteroskedasticity-robust (HC3). Call ``.summary()`` on the result for the table.
    """
    import statsmodels.formula.api as smf

    frame = prepare_price_data(dataset).observations.copy()
    frame["is_list"] = (frame["price_class"] == "list").astype(float)
    frame["age_list"] = frame["age_years"] * frame["is_list"]
    market_vendors = identified_market_vendors(frame)
    terms = []
    for vendor in market_vendors:
        column = f"age_market_{vendor}"
        frame[column] = frame["age_years"] * (1.0 - frame["is_list"]) * (
            frame["vendor_group"] == vendor)
        terms.append(column)
    formula = ("log_price ~ C(chip) + C(pricing_type, Treatment('on-demand')) + is_list"
               " + age_list + " + " + ".join(terms))
    with warnings.catch_warnings():
        # Chips seen only at list prices make their fixed effect collinear with the list
        # premium; the slopes reported here stay identified (statsmodels uses a pseudo-inverse).
        warnings.simplefilter("ignore")
        return smf.ols(formula, data=frame).fit(cov_type="HC3")


def ols_decay_rates(results: Any) -> pd.DataFrame:
    """Per-vendor market decay (log price per year) and its standard error from the OLS fit."""
    rows = [
        {"vendor": name.removeprefix("age_market_"), "decay": value, "se": results.bse[name]}
        for name, value in results.params.items()
        if name.startswith("age_market_")
    ]
    return pd.DataFrame(rows)


def simulate_price_observations(
    template: pd.DataFrame,
    catalogue: pd.DataFrame,
    decay: Mapping[str, float],
    launch_log_price: Mapping[str, float],
    list_premium: float,
    list_drift: float,
    type_offsets: Mapping[str, float],
    noise: float,
    seed: int,
) -> pd.DataFrame:
    """Prices simulated from the model's own math on the design of ``template``.

    ``template`` has the rental-price columns (date, chip, provider_or_index, pricing_type);
    the cycle is switched off (its recovery is not what the test checks). Returns a frame in
    the shape of ``Dataset.rental_prices`` with ``usd_per_chip_hour`` replaced.
    """
    rng = np.random.default_rng(seed)
    frame = template.copy()
    spec = catalogue.set_index("chip")
    vendor = spec.loc[frame["chip"], "vendor_group"].to_numpy()
    release = spec.loc[frame["chip"], "release_date"].to_numpy()
    age = np.maximum((frame["date"].to_numpy() - release) / np.timedelta64(1, "D")
                     / DAYS_PER_YEAR, 0.0)
    is_market = price_class(frame["pricing_type"].astype(str),
                            frame["provider_or_index"]) == "market"
    offsets = frame["pricing_type"].astype(str).map(lambda k: type_offsets.get(k, 0.0))
    level = (frame["chip"].map(launch_log_price).to_numpy() + offsets.to_numpy()
             + np.where(is_market, 0.0, list_premium))
    slope = np.where(is_market, np.array([decay[v] for v in vendor]), list_drift)
    log_price = log_price_mean(level, 0.0, slope, age, 0.0, 0.0)
    log_price = log_price + noise * rng.standard_t(NOISE_DOF, size=len(frame))
    frame["usd_per_chip_hour"] = np.exp(log_price)
    return frame
