"""The manifest of the shipped data: every file of the data folder with its sha256.

``data/SHA256SUMS`` (the format of ``sha256sum``: ``<hex digest>  <path>``, one file a line, paths
relative to the data folder; ``cd data && sha256sum -c SHA256SUMS`` checks it too) lists every
shipped file: the word lists, Termo's ICF scores and raw sources, the trees and the openers.

A file is checked against it whenever derived data is made from it, where its bytes are read
anyway: the parsed game lists (`termo.games.parsed`) hash their sources for their cache key on
every start, and the key's digests are compared here (no second read); a parse that reads a
list (`termo.games.words.read_words`, the lexicon's lines) checks what it read. So a rotted
byte in a list (``dough`` → ``dpugh``) stops the command with one line naming the file
(`TermoError`: exit 2), before a matrix, a tree or an opener is made for a different game. The
trees and the openers carry their own seals, checked on every read (a damaged one is reported
and recomputed); the manifest lists them as well.

After an intended change of a shipped file: ``python -m termo.core.manifest --write FILE...``
(those entries only), or ``--write`` alone (every file; run the check first). Without
``--write`` it checks every listed file and names those that differ (exit 1).
``tests/test_manifest.py`` checks that the committed manifest matches ``data/``.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

from termo.core.errors import TermoError
from termo.core.paths import data_dir

NAME = "SHA256SUMS"
SKIP = frozenset({NAME, "__init__.py"})  # the manifest itself, and the package marker (not data)
REWRITE = "python -m termo.core.manifest --write"
_read: dict = {}  # (folder, size, mtime) -> {relative path: digest}


def manifest_path(folder: Path | None = None) -> Path:
    return (folder or data_dir()) / NAME


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def parse(text: str) -> dict[str, str]:
    """``{relative path: hex digest}`` of a manifest's text (``sha256sum``'s format)."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        if line.strip():
            value, _, name = line.partition("  ")
            out[name.lstrip("*")] = value.strip().lower()
    return out


def listed(folder: Path | None = None) -> dict[str, str]:
    """The manifest of ``folder`` (default the data folder), read once per version of the file."""
    path = manifest_path(folder)
    try:
        stat = path.stat()
        memo = (str(path), stat.st_size, stat.st_mtime_ns)
        if memo not in _read:
            _read[memo] = parse(path.read_text(encoding="utf-8"))
        return _read[memo]
    except (OSError, UnicodeDecodeError) as err:
        from termo.core.cache import os_reason

        reason = os_reason(err) if isinstance(err, OSError) else "not text"
        raise TermoError(f"cannot read the data manifest {path}: {reason} (reinstall termo; a data folder of "
                         f"your own, $TERMO_DATA_DIR: {REWRITE})") from None


def _relative(path: Path, folder: Path) -> str | None:
    """``path`` relative to ``folder`` (None: outside it); the shipped paths are built from the
    folder, so the plain comparison answers them without a system call."""
    try:
        return Path(path).relative_to(folder).as_posix()
    except ValueError:
        pass
    try:
        return Path(path).resolve().relative_to(folder.resolve()).as_posix()
    except ValueError:
        return None


def check(path: Path | str, data: bytes | None = None, sha256: str | None = None) -> None:
    """Raise `TermoError` naming ``path`` when it is a file of the data folder whose bytes
    (``data``, or their digest ``sha256``) are not the ones the manifest lists. A file outside
    the data folder is not checked."""
    folder = data_dir()
    name = _relative(Path(path), folder)
    if name is None:
        return
    want = listed(folder).get(name)
    if want is None:
        raise TermoError(f"{path} is not a shipped data file (not in {manifest_path(folder)}); "
                         f"after an intended change run: {REWRITE} {name}")
    got = sha256 if sha256 is not None else digest(data if data is not None else Path(path).read_bytes())
    if got != want:
        raise TermoError(f"{path} is damaged: its sha256 is not the one in {manifest_path(folder)} "
                         f"(reinstall termo; after an intended change run: {REWRITE} {name})")


def read_checked(path: Path | str) -> bytes:
    """The bytes of ``path``, checked against the manifest (`check`)."""
    data = Path(path).read_bytes()
    check(path, data)
    return data


def shipped_files(folder: Path | None = None) -> dict[str, str]:
    """``{relative path: digest}`` of every file in ``folder`` (default the data folder): what
    the manifest should list (caches of Python and hidden files left out)."""
    folder = folder or data_dir()
    out = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder)
        if (path.is_file() and rel.as_posix() not in SKIP and "__pycache__" not in rel.parts
                and not any(part.startswith(".") for part in rel.parts)):
            out[rel.as_posix()] = digest(path.read_bytes())
    return out


def differences(folder: Path | None = None) -> list[str]:
    """One line per file that the manifest and the folder disagree on (empty: they agree)."""
    folder = folder or data_dir()
    have, want = shipped_files(folder), listed(folder)
    lines = [f"{name}: changed" for name in sorted(have.keys() & want.keys()) if have[name] != want[name]]
    lines += [f"{name}: not in the manifest" for name in sorted(have.keys() - want.keys())]
    lines += [f"{name}: missing" for name in sorted(want.keys() - have.keys())]
    return lines


def write(names=(), folder: Path | None = None) -> Path:
    """Write the manifest of ``folder``: the entries of ``names`` (relative paths) from the files
    as they are now, the others kept; no ``names``: every file as it is now."""
    from termo.core.cache import atomic_write_bytes

    folder = folder or data_dir()
    now = shipped_files(folder)
    if names:
        entries = dict(listed(folder)) if manifest_path(folder).exists() else {}
        for name in names:
            name = Path(name).as_posix()
            if name in now:
                entries[name] = now[name]
            else:
                entries.pop(name, None)
    else:
        entries = now
    text = "".join(f"{entries[name]}  {name}\n" for name in sorted(entries))
    atomic_write_bytes(manifest_path(folder), text.encode("utf-8"))
    return manifest_path(folder)


def main(argv: list[str]) -> int:
    folder = data_dir()
    if argv[:1] == ["--write"]:
        names = [_relative(Path(a), folder) or a for a in argv[1:]]
        print(f"wrote {write(names, folder)}")
        return 0
    if argv:
        print("usage: python -m termo.core.manifest [--write [FILE...]]", file=sys.stderr)
        return 2
    problems = differences(folder)
    for line in problems:
        print(line)
    print(f"{manifest_path(folder)}: " + ("every file matches" if not problems else f"{len(problems)} differ"))
    return 1 if problems else 0


if __name__ == "__main__":  # python -m termo.core.manifest [--write [FILE...]]
    try:
        sys.exit(main(sys.argv[1:]))
    except TermoError as err:
        print(f"error: {err}", file=sys.stderr)
        sys.exit(2)
