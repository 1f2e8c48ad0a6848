"""Compile errors, one rule for every compiler the package runs (NVRTC for the CUDA backend and
the CI compile check, CuPy's compiler as a fallback, the host compiler of the emulator).

A module that fails to compile may ask for dozens of instantiations, and its log repeats the
same error for each of them: tens of thousands of characters in which the one useful line is
buried. So the message of a :class:`CompileError` is one line: what was compiled, the
instantiation the first error came from, the compiler's first error line, and the file that
holds the whole log. The whole log stays on the exception (``log``), with the instantiations
asked for (``names``).

Depends only on the standard library and :mod:`.cache` (the emulator imports it).
"""

from __future__ import annotations

import hashlib
import os
import pathlib
import re
from collections.abc import Iterable
from typing import Any, TypeVar

from .cache import cache_dir

__all__ = ["CompileError", "first_error", "first_error_block", "compiler_instantiation", "log_dir"]

#: the most characters of the compiler's first error line a message quotes
_FIRST_MAX = 400
#: a diagnostic line: "file:12:3: error: ...", "file(12): error: ...", "ptxas error   : ..."
_ERROR = re.compile(r"\b(fatal )?error\b\s*:", re.IGNORECASE)
_ERROR_WORD = re.compile(r"\berror\b", re.IGNORECASE)
#: the instantiation context of a diagnostic: NVRTC's 'detected during instantiation of "..."',
#: the host compiler's 'In instantiation of '...''
_CONTEXT = re.compile(r"instantiation of [\"\u2018'](.+?)[\"\u2019']")

_E = TypeVar("_E", bound="CompileError")


def first_error(log: str) -> tuple[int | None, str]:
    """``(index, line)``: the first line of ``log`` that is a compiler diagnostic of kind
    error (else the first line that says "error", else the first non-empty line), with its
    index in ``log.splitlines()``; ``(None, "")`` for an empty log."""
    lines = log.splitlines()
    for pattern in (_ERROR, _ERROR_WORD):
        for i, line in enumerate(lines):
            if pattern.search(line):
                return i, line.strip()
    for i, line in enumerate(lines):
        if line.strip():
            return i, line.strip()
    return None, ""


def first_error_block(log: str) -> list[str]:
    """The lines of ``log`` up to the second error: the first error with its context (the
    "In instantiation of ... required from here" lines a compiler prints before it, or the notes
    after it)."""
    lines = log.splitlines()
    i, _ = first_error(log)
    if i is None:
        return lines
    for j in range(i + 1, len(lines)):
        if _ERROR.search(lines[j]):
            return lines[:j]
    return lines


def compiler_instantiation(log: str) -> str | None:
    """The instantiation the compiler says its first error came from (the outermost of the
    "instantiation of" lines of the first error's block, for the kernel rather than a helper it
    calls), or None."""
    found = [m.group(1) for line in first_error_block(log) for m in _CONTEXT.finditer(line)]
    return found[-1] if found else None


def log_dir() -> pathlib.Path:
    """Where whole compile logs are written: ``$PRIMITIVES_CACHE_DIR/compile-logs`` (default
    ``~/.cache/primitives/compile-logs``)."""
    return cache_dir("compile-logs")


def _save(what: str, names: Iterable[str], log: str) -> pathlib.Path | None:
    """The path of a file holding ``log`` (after what was compiled and the instantiations asked
    for), named by a hash of its text, or None where none could be written."""
    text = (
        what
        + "\ninstantiations asked for:\n"
        + "".join(f"  {n}\n" for n in names)
        + "\n"
        + log
        + "\n"
    )
    path = log_dir() / f"{hashlib.sha256(text.encode()).hexdigest()[:16]}.log"
    try:
        if not path.is_file():
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")  # whole files or none
            tmp.write_text(text)
            os.replace(tmp, path)
        return path
    except OSError:
        return None


def _rebuild(cls: type[_E], message: str, state: dict[str, Any]) -> _E:
    exc = cls.__new__(cls)
    RuntimeError.__init__(exc, message)
    exc.__dict__.update(state)
    return exc


class CompileError(RuntimeError):
    """A compiler rejected a module, or could not be run.

    ``what``: what was compiled ("compiling reduction/reduce.cu"); ``log``: the compiler's whole
    output; ``names``: the instantiations asked for; ``instantiation``: the one the first error
    came from, where the caller knows it (one name asked for: that one; else what the log says,
    in the compiler's spelling). With a log the message
    is ``"<what> failed in <instantiation>: <first error line> (whole log: <file>)"``, one line;
    without one it is ``what`` alone (a compiler that did not run). ``log_path``: the file of
    the whole log (None for a log of one line, or where none could be written); a caller that
    wraps another :class:`CompileError` passes its file on."""

    def __init__(
        self,
        what: str,
        log: str = "",
        names: Iterable[str] = (),
        instantiation: str | None = None,
        log_path: pathlib.Path | None = None,
    ) -> None:
        self.what, self.log, self.names = what, log, list(names)
        if instantiation is None and len(self.names) == 1:
            instantiation = self.names[0]
        self.log_path = log_path
        if not log.strip():
            self.instantiation = instantiation
            super().__init__(what)
            return
        if instantiation is None:
            instantiation = compiler_instantiation(log)
        self.instantiation = instantiation
        if log_path is None and len(log.strip().splitlines()) > 1:
            self.log_path = _save(what, self.names, log)
        _, first = first_error(log)
        if len(first) > _FIRST_MAX:
            first = first[:_FIRST_MAX] + " ..."
        if instantiation is not None:
            where = f" in {instantiation}"
        elif self.names:
            where = f" in one of {len(self.names)} instantiations ({self.names[0]}, ...)"
        else:
            where = ""
        tail = f" (whole log: {self.log_path})" if self.log_path else ""
        super().__init__(f"{what} failed{where}: {first}{tail}")

    # pickled with its log, not rebuilt (and saved again) from arguments
    def __reduce__(self) -> tuple[Any, ...]:
        return _rebuild, (type(self), str(self), dict(self.__dict__))
