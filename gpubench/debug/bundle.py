"""The recording bundle: kernel launches saved so that each can be run again alone and what it
wrote compared. One format for both recorders: the emulator's (gpubench.debug.record, a launch hook
inside the emulated GPU) and the client's (gpubench.debug.client_recorder, at tinygrad's program
launch, on any AMD device).

    BUNDLE/launches/<prefix>NNNNNN.json   one manifest per launch (xdist workers prefix theirs: gw0-)
    BUNDLE/blobs/<sha256>.zst             buffer contents, zstandard-compressed, named by their hash

A manifest names its launch (kernel, target, grid, block, the device it ran on), how it starts and
its regions: each a range of GPU memory the launch could reach (address, size, role, dtype) with
its contents before the launch and, if the launch changed it, after. Blobs are shared: a code
object or an input seen by many launches is stored once. Files are written whole and renamed into
place, so several processes can record into one bundle and a reader never sees half a file.

How a launch starts, by ``start["kind"]``:
- "registers" (the emulator's view): the program address, the kernel descriptor as the command
  processor held it and the user SGPRs.
- "code_object" (the client's view): the code object, the kernel's name, the address its descriptor
  was loaded at and the kernel arguments' address; the user SGPRs follow from the descriptor.
"""
from __future__ import annotations

import hashlib
import itertools
import json
import os
from pathlib import Path

import numpy as np
import zstandard

FORMAT = 2
LEVEL = 3  # zstandard's default: buffers compress about as well at 3 as at 19, many times faster


class BundleError(Exception):
    """A bundle that cannot be read: missing, truncated or corrupt; the message names the file."""


class BundleWriter:
    """Writes launches into ``directory``; ``prefix`` keeps the manifests of several processes apart."""

    def __init__(self, directory: str | Path, prefix: str = ""):
        self.directory, self.prefix = Path(directory), prefix
        (self.directory / "launches").mkdir(parents=True, exist_ok=True)
        (self.directory / "blobs").mkdir(exist_ok=True)
        self._numbers = itertools.count()
        self._compressor = zstandard.ZstdCompressor(level=LEVEL, write_checksum=True)

    def blob(self, data: bytes | np.ndarray) -> str:
        """Store ``data`` (once per content) and return its name."""
        raw = data.tobytes() if isinstance(data, np.ndarray) else bytes(data)
        name = hashlib.sha256(raw).hexdigest()
        path = self.directory / "blobs" / f"{name}.zst"
        if not path.exists():
            _write_whole(path, self._compressor.compress(raw))
        return name

    def add(self, manifest: dict) -> Path:
        path = self.directory / "launches" / f"{self.prefix}{next(self._numbers):06d}.json"
        _write_whole(path, json.dumps({"format": FORMAT, **manifest}, indent=1).encode())
        return path


def _write_whole(path: Path, data: bytes) -> None:
    temporary = path.with_name(f".{path.name}.{os.getpid()}")
    temporary.write_bytes(data)
    os.replace(temporary, path)


def launch_files(directory: str | Path) -> list[Path]:
    """The manifests of a bundle, in recording order per process."""
    launches = Path(directory) / "launches"
    if not launches.is_dir():
        raise BundleError(f"{directory}: not a gpubench bundle (no launches/ directory)")
    return sorted(launches.glob("*.json"))


def read_manifest(path: str | Path) -> dict:
    path = Path(path)
    try:
        manifest = json.loads(path.read_text())
    except FileNotFoundError:
        raise BundleError(f"{path}: no such launch manifest") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise BundleError(f"{path}: truncated or corrupt manifest ({e})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        found = manifest.get("format") if isinstance(manifest, dict) else None
        raise BundleError(f"{path}: bundle format {found!r}, this gpubench reads format {FORMAT}")
    return manifest


def read_blob(directory: str | Path, name: str, size: int) -> np.ndarray:
    """A blob's bytes (uint8), checked against the size the manifest gives and the hash it is named by."""
    path = Path(directory) / "blobs" / f"{name}.zst"
    try:
        raw = zstandard.ZstdDecompressor().decompress(path.read_bytes())
    except FileNotFoundError:
        raise BundleError(f"{path}: missing (the bundle is incomplete)") from None
    except zstandard.ZstdError as e:
        raise BundleError(f"{path}: truncated or corrupt ({e})") from None
    if len(raw) != size or hashlib.sha256(raw).hexdigest() != name:
        raise BundleError(f"{path}: holds {len(raw)} bytes that do not match its name and the manifest's {size}")
    return np.frombuffer(raw, np.uint8).copy()
