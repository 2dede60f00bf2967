"""Checksums of stored fits: every file's SHA-256 recorded at publish, checked on load.

A fit's header (``bundle.json``) records ``checksums``, the SHA-256 of every other file of the
fit directory by relative path (each model's files, the data and scenario snapshots, the
revision report), and ``header_sha256``, the SHA-256 of the header's own bytes with that field
set to 64 zeros. Any byte changed anywhere in a fit therefore fails one check or the other,
and the error names the file.

Loading checks the header and the snapshots, then each model's files as the model loads them
(:meth:`forecast.models.fitted.Fitted.load`): a damaged fast copy falls back to the archival
file if that one verifies; anything else refuses the fit. :func:`verify_fit` checks every
file at once. A header with neither field was written before checksums were recorded: it is
read as before, unchecked (a single changed byte cannot turn a checked header into one).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from forecast.core.errors import FitError
from forecast.core.fastio import damaged, read_verified, sha256_bytes, sha256_file, verify_file

HEADER_FILE = "bundle.json"
CHECKSUMS = "checksums"
HEADER_DIGEST = "header_sha256"
_PLACEHOLDER = "0" * 64


def _digest_field(digest: str) -> bytes:
    return f'"{HEADER_DIGEST}": "{digest}"'.encode()


def encode_header(header: Mapping[str, Any]) -> bytes:
    """``bundle.json``'s bytes: the header with ``header_sha256`` first, digesting the rest.

    Parameters
    ----------
    header
        The header, with its ``checksums``.

    Returns
    -------
    bytes
        Indented JSON whose ``header_sha256`` is the SHA-256 of these very bytes with the
        digest replaced by 64 zeros.
    """
    body = {HEADER_DIGEST: _PLACEHOLDER,
            **{key: value for key, value in header.items() if key != HEADER_DIGEST}}
    raw = json.dumps(body, indent=2, default=str).encode()
    return raw.replace(_digest_field(_PLACEHOLDER), _digest_field(sha256_bytes(raw)), 1)


def decode_header(raw: bytes, path: Path) -> dict[str, Any]:
    """Parse and check ``bundle.json``.

    Parameters
    ----------
    raw
        The file's bytes.
    path
        The file, for messages; its directory's name must be the header's ``fit_id``.

    Returns
    -------
    dict
        The header.

    Raises
    ------
    FitError
        Naming the file, when it is not JSON, not a fit header, or fails its own checksum.
    """
    try:
        header = json.loads(raw)
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError
        raise damaged(path, f"not readable JSON ({getattr(exc, 'msg', None) or exc})") from None
    if not isinstance(header, dict):
        raise damaged(path, "not a fit header")
    claimed = header.get(HEADER_DIGEST)
    if claimed is not None or CHECKSUMS in header:
        sums = header.get(CHECKSUMS)
        if not (isinstance(claimed, str) and isinstance(sums, dict)
                and all(isinstance(v, str) for v in sums.values())):
            raise damaged(path, "checksum record incomplete")
        if sha256_bytes(raw.replace(_digest_field(claimed), _digest_field(_PLACEHOLDER),
                                    1)) != claimed:
            raise damaged(path, "checksum mismatch")
    models = header.get("models")
    if not (isinstance(models, list) and all(isinstance(m, str) for m in models)):
        raise damaged(path, "no list of models")
    # The shipped fit lives in ``published/`` whatever its id; a stored fit in its id's folder.
    if header.get("kind") != "shipped" and header.get("fit_id") != path.parent.name:
        raise damaged(path, f"holds fit {header.get('fit_id')!r}, not {path.parent.name!r}")
    return header


def read_checked_header(directory: Path) -> dict[str, Any]:
    """The checked header of a fit directory (:func:`decode_header`).

    Raises
    ------
    FitError
        When ``bundle.json`` is missing, unreadable or damaged: a fit directory without a
        readable header is a damaged fit, not an absent one.
    """
    path = directory / HEADER_FILE
    return decode_header(read_verified(path, None), path)


def tree_checksums(directory: Path) -> dict[str, str]:
    """SHA-256 of every file under ``directory`` but its ``bundle.json``, by relative path.

    Parameters
    ----------
    directory
        A fit directory being written.

    Returns
    -------
    dict
        ``{"price-1a2b.../posterior.nc": "<hex digest>", "data/prices.csv": ..., ...}``,
        sorted by path.
    """
    sums = {}
    for path in sorted(directory.rglob("*")):
        relative = path.relative_to(directory).as_posix()
        if path.is_file() and relative != HEADER_FILE:
            sums[relative] = sha256_file(path)
    return sums


def model_checksums(header: Mapping[str, Any], key: str) -> dict[str, str] | None:
    """The checksums of one model directory's files by file name; None for an unchecked fit."""
    sums = header.get(CHECKSUMS)
    if sums is None:
        return None
    prefix = f"{key}/"
    return {path[len(prefix):]: digest for path, digest in sums.items()
            if path.startswith(prefix)}


def verify_paths(directory: Path, header: Mapping[str, Any], paths: Iterable[str]) -> None:
    """Check the named files (relative paths) of a fit against its header.

    Raises
    ------
    FitError
        Naming the first missing, unreadable or changed file.
    """
    sums = header.get(CHECKSUMS) or {}
    for relative in paths:
        verify_file(directory / relative, sums[relative])


def verify_outside_models(directory: Path, header: Mapping[str, Any]) -> None:
    """Check the fit's files outside its model directories (snapshots, reports).

    Raises
    ------
    FitError
        Naming the first missing, unreadable or changed file.
    """
    models = set(header.get("models", []))
    verify_paths(directory, header, [path for path in header.get(CHECKSUMS) or {}
                                     if path.split("/", 1)[0] not in models])


def verify_fit(directory: Path) -> dict[str, Any]:
    """Check every file of a stored fit against its header; returns the header.

    Raises
    ------
    FitError
        Naming the first damaged file; also for a fit stored without checksums, which
        cannot be verified.
    """
    header = read_checked_header(directory)
    if CHECKSUMS not in header:
        raise FitError(f"{directory}: stored without checksums (before they were recorded): "
                       "cannot be verified")
    missing = [key for key in header["models"]
               if not any(path.startswith(f"{key}/") for path in header[CHECKSUMS])]
    if missing:
        raise damaged(directory / HEADER_FILE, f"no checksums for model {missing[0]}")
    verify_paths(directory, header, header[CHECKSUMS])
    return header
