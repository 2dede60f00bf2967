"""core layer: calendar, errors, small stats helpers, presentation, array copies.

Importing it first tells xarray not to import dask on the forecast path
(:mod:`forecast.core.xarray_setup`).
"""

from forecast.core.xarray_setup import skip_dask_array_check

skip_dask_array_check()
