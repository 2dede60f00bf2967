"""Reporting layer: what people read, from the pipeline's forecasts and fits.

- :mod:`~forecast.reporting.console`: the text of every command line command (``cli.py``
  parses arguments, calls these and prints);
- :mod:`~forecast.reporting.outputs`: a forecast's files (CSV, Parquet, JSON, PNG);
- :mod:`~forecast.reporting.plots`: Matplotlib charts;
- :mod:`~forecast.reporting.sensitivity`: which scenario inputs move an output;
- :mod:`~forecast.reporting.report`: the HTML and Markdown report of a scenario;
- :mod:`~forecast.reporting.model_check`: a model check as text.

Numbers are named and formatted by :mod:`forecast.core.presentation`, shared with the
pipeline's revision report.
"""
