"""Plain text the command line prints: one function per command, each returning its text.

The command line (``cli.py``) parses arguments, calls these and prints what they return;
notebooks can call them too. Modules import lazily what their command needs, so that a
command loads only its own dependencies (``forecast`` never loads PyMC, SciPy or Matplotlib).
"""
