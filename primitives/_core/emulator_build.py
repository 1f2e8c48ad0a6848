"""Building the emulator's modules: the host C++ compiler, its options, the glue that exports each
kernel's launcher, the on-disk cache of shared objects and its lock across processes.

Split from :mod:`primitives._core.emulator` (which loads and launches what this builds). Depends
only on the standard library and :mod:`primitives._core.compile_errors`.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import pathlib
import re
import shlex
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Sequence

from .cache import cache_dir
from .compile_errors import CompileError, first_error_block

__all__ = ["EmulatorCompileError", "EMU_HEADER", "prepare", "builds"]

_ABI = 1  # must match PRIM_EMU_ABI in emu.h


class EmulatorCompileError(CompileError):
    """The host compiler rejected a module (one line: the name expression the first error came
    from, the compiler's first error and the file of the whole log,
    :mod:`primitives._core.compile_errors`), or could not be run (``what`` alone); ``log``,
    ``name_expressions`` and ``command`` say why."""

    def __init__(
        self,
        what: str,
        log: str = "",
        name_expressions: Iterable[str] = (),
        command: Iterable[str] = (),
        instantiation: str | None = None,
    ) -> None:
        super().__init__(what, log, name_expressions, instantiation)
        self.command = list(command)

    @property
    def name_expressions(self) -> list[str]:
        return self.names


def _find_header() -> pathlib.Path:
    env = os.environ.get("PRIMITIVES_EMU_HEADER")
    if env:
        return pathlib.Path(env).resolve()
    package = pathlib.Path(__file__).resolve().parent.parent
    for cand in (
        package / "kernels" / "emulator" / "emu.h",
        package.parent / "kernels" / "emulator" / "emu.h",
    ):
        if cand.is_file():
            return cand
    return package.parent / "kernels" / "emulator" / "emu.h"


#: The emulation header force-included into every module (override: $PRIMITIVES_EMU_HEADER).
EMU_HEADER = _find_header()

# ---------------------------------------------------------------------------------------------
# compiler
# ---------------------------------------------------------------------------------------------
_compiler_cache: dict[str, tuple[list[str], str, bool]] = {}


def _compiler() -> tuple[list[str], str, bool]:
    """(argv prefix, identity string) of the host C++ compiler ($CXX, else g++, else c++)."""
    cxx_env = os.environ.get("CXX", "").strip()
    key = cxx_env
    hit = _compiler_cache.get(key)
    if hit:
        return hit
    if cxx_env:
        argv = shlex.split(cxx_env)
        if not shutil.which(argv[0]):
            raise EmulatorCompileError(f"emulator: $CXX={cxx_env!r} is not an executable")
    else:
        exe = shutil.which("g++") or shutil.which("c++") or shutil.which("clang++")
        if not exe:
            raise EmulatorCompileError(
                "emulator: no C++ compiler found (install g++, or set $CXX) -- the CPU emulator "
                "compiles the CUDA kernels with the host compiler"
            )
        argv = [exe]
    try:
        ident = subprocess.run(
            argv + ["--version"], capture_output=True, text=True, timeout=60
        ).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        raise EmulatorCompileError(f"emulator: cannot run the C++ compiler {argv}: {exc}") from exc
    res = (argv, ident.strip(), "clang" in ident.lower())
    _compiler_cache[key] = res
    return res


# NVRTC options that mean nothing to the host compiler are dropped; -D/-U/-I/-std and
# host-meaningful -O/-W/-f/-g/-m flags pass through.
_NVRTC_ONLY_PREFIXES = (
    "-fmad",
    "-ftz",
    "-prec-",
    "-arch",
    "-use_fast_math",
    "--",
    "-lineinfo",
    "-default-device",
    "-dopt",
    "-ewp",
    "-dw",
    "-rdc",
    "-dlto",
    "-G",
)


def _translate_options(options: Iterable[object]) -> list[str]:
    out = []
    for opt in options:
        opt = str(opt)
        if opt.startswith(("--std=", "-std=")):
            out.append("-std=" + opt.split("=", 1)[1])
        elif opt.startswith(("--define-macro=", "--undefine-macro=", "--include-path=")):
            flag = {"--define-macro=": "-D", "--undefine-macro=": "-U", "--include-path=": "-I"}
            for pre, short in flag.items():
                if opt.startswith(pre):
                    out.append(short + opt[len(pre) :])
        elif opt.startswith(("-D", "-U", "-I")):
            out.append(opt)
        elif opt.startswith(_NVRTC_ONLY_PREFIXES):
            continue
        elif opt.startswith(("-O", "-W", "-f", "-g", "-m")):
            out.append(opt)
    return out


_LINKER_SCRIPT = """\
SECTIONS {
  prim_emu_tshared : ALIGN(64) {
    PROVIDE_HIDDEN(prim_emu_tshared_begin = .);
    KEEP(*(.bss.prim_emu_shared))
    *(.bss._ZZ*)
    PROVIDE_HIDDEN(prim_emu_tshared_end = .);
  }
} INSERT AFTER .bss;
"""


def _cache_dir() -> pathlib.Path:
    d = cache_dir("emulator")
    try:
        d.mkdir(parents=True, exist_ok=True)
        if os.access(d, os.W_OK):
            return d
    except OSError:
        pass
    d = pathlib.Path(tempfile.gettempdir()) / f"primitives-emulator-{os.getuid()}"
    d.mkdir(parents=True, exist_ok=True)
    return d


_GLUE_FILE = "<primitives-emulator-glue>"
_GLUE_LINE = re.compile(re.escape(_GLUE_FILE) + r":(\d+)")


def _glue(name_expressions: Iterable[str]) -> str:
    # the layout _glue_expression reads back: line 1 the exports' macro, then three lines per
    # name expression (a comment, its launcher, its parameter description)
    lines = ["", f'#line 1 "{_GLUE_FILE}"', "PRIM_EMU_MODULE_EXPORTS"]
    for i, expr in enumerate(name_expressions):
        lines.append(f"// [{i}] {expr}")
        lines.append(
            f"PRIM_EMU_EXPORT int prim_emu_launch_{i}(const long long* cfg, void** args, char* err, "
            f"long long errlen) {{ return ::prim_emu::launch(&{expr}, cfg, args, err, errlen); }}"
        )
        lines.append(
            f"PRIM_EMU_EXPORT long long prim_emu_params_{i}(::prim_emu::ParamInfo* out, long long cap) "
            f"{{ return ::prim_emu::param_info(&{expr}, out, cap); }}"
        )
    return "\n".join(lines) + "\n"


def _glue_expression(log: str, names: Sequence[str]) -> str | None:
    """The name expression the compiler's first error came from: the first glue line (a
    launcher or parameter description of one name expression) the first error's block of the
    log names (its "required from here", or the error itself), or None."""
    for line in first_error_block(log):
        m = _GLUE_LINE.search(line)
        if m:
            i = (int(m.group(1)) - 2) // 3
            if 0 <= i < len(names):
                return names[i]
    return None


def prepare(
    code: str,
    names: Sequence[str],
    include_dirs: Iterable[str | os.PathLike[str]],
    options: Iterable[object],
    cache_key: object,
    filename: str,
) -> tuple[str, Callable[[], pathlib.Path]]:
    """``(digest, build)`` of a module: the hash of everything that makes its shared object (the
    source, the name expressions, the options, the include tree's ``cache_key``, emu.h and the
    compiler), and a function that returns the shared object's path, building it first (once
    across processes) where the cache does not hold it."""
    argv, ident, is_clang = _compiler()
    header = EMU_HEADER
    try:
        header_text = header.read_bytes()
    except OSError as exc:
        raise EmulatorCompileError(f"emulator: cannot read {header}: {exc}") from exc
    incs = [str(pathlib.Path(d).resolve()) for d in include_dirs]
    opts = _translate_options(options)
    h = hashlib.sha256()
    for part in (
        f"abi{_ABI}",
        code,
        "\0".join(names),
        "\0".join(opts),
        "\0".join(incs),
        str(cache_key),
        filename,
        ident,
        " ".join(argv),
    ):
        h.update(part.encode() if isinstance(part, str) else part)
        h.update(b"\x00\x01")
    h.update(header_text)
    digest = h.hexdigest()[:40]

    def build() -> pathlib.Path:
        cdir = _cache_dir()
        so_path = cdir / f"{digest}.so"
        if not so_path.is_file():
            with _build_lock(cdir / f"{digest}.lock"):  # one build of a module across processes
                if not so_path.is_file():
                    t0 = time.perf_counter()
                    _build(argv, is_clang, header, code, names, incs, opts, filename, so_path, cdir)
                    _builds.append(digest)
                    _log_build(filename, names, time.perf_counter() - t0)
        return so_path

    return digest, build


_builds: list[str] = []  # the modules this process compiled


def _log_build(filename: str, names: Sequence[str], seconds: float) -> None:
    """One JSON line a build (the source file, its name expressions, the seconds the compiler
    took and, under pytest, the test that asked for it) appended to
    ``$PRIMITIVES_EMULATOR_BUILD_LOG`` where it is set: which modules a test run compiles, what
    each costs, and for which test."""
    path = os.environ.get("PRIMITIVES_EMULATOR_BUILD_LOG")
    if path:
        line = {"file": filename, "names": list(names), "seconds": round(seconds, 3)}
        test = os.environ.get("PYTEST_CURRENT_TEST")
        if test:
            line["test"] = test.rsplit(" (", 1)[0]
        with open(path, "a") as f:
            f.write(json.dumps(line) + "\n")


def builds() -> int:
    """How many modules this process compiled (the others came from the cache)."""
    return len(_builds)


@contextlib.contextmanager
def _build_lock(path: pathlib.Path) -> Iterator[None]:
    """An exclusive lock on ``path`` across processes (test workers sharing one cache build a
    module once, the others wait for it); no lock where ``fcntl`` is missing."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    with open(path, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _flags(is_clang: bool, incs: Iterable[str], opts: list[str]) -> list[str]:
    """The compiler's options of a module, the precompiled header's too (GCC takes a precompiled
    header only where the code generation options are the ones it was made with)."""
    flags = [
        "-std=c++17",
        "-O1",
        "-fPIC",
        "-pipe",
        "-DPRIM_EMULATOR=1",
        "-Wno-unknown-pragmas",
        "-fvisibility=hidden",
        "-fno-strict-aliasing",
        "-fwrapv",
        "-fno-threadsafe-statics",
    ]
    if not is_clang:
        flags.append("-fno-gnu-unique")
    return flags + [f"-I{d}" for d in incs] + opts


def _header_folder(
    argv: list[str], header: pathlib.Path, flags: list[str], cdir: pathlib.Path
) -> pathlib.Path:
    """The cache's folder of what is made once per header text, compiler and options: the
    precompiled header and the runtime object."""
    text = header.read_bytes()
    digest = hashlib.sha256(b"\0".join([text, *(a.encode() for a in argv + flags)])).hexdigest()
    return cdir / "pch" / digest[:40]


def _precompiled_header(
    argv: list[str], header: pathlib.Path, flags: list[str], cdir: pathlib.Path
) -> pathlib.Path | None:
    """A copy of emu.h with GCC's precompiled form of it beside it (``emu.h.gch``, which GCC
    reads instead of parsing emu.h and the standard headers it includes: most of a small
    module's compile), made once per header text, compiler and options under the cache; None
    (the module includes emu.h itself) where GCC cannot make one."""
    text = header.read_bytes()
    folder = _header_folder(argv, header, flags, cdir)
    copy, gch = folder / "emu.h", folder / "emu.h.gch"
    if gch.is_file():
        return copy
    folder.mkdir(parents=True, exist_ok=True)
    with _build_lock(folder / "lock"):
        if gch.is_file():
            return copy
        copy.write_bytes(text)
        tmp = folder / f".tmp-{os.getpid()}.gch"
        try:
            proc = subprocess.run(
                argv + flags + ["-x", "c++-header", str(copy), "-o", str(tmp)],
                capture_output=True,
                text=True,
            )
        except OSError:
            return None
        if proc.returncode != 0:
            tmp.unlink(missing_ok=True)
            return None
        os.replace(tmp, gch)
    return copy


def _runtime_object(
    argv: list[str], header: pathlib.Path, flags: list[str], cdir: pathlib.Path
) -> pathlib.Path | None:
    """The emulator's runtime (emu.h compiled with ``PRIM_EMU_RUNTIME`` defined: the launcher
    and the scheduler, fault handling and pool it calls) as an object file that every module
    links, made once per header text, compiler and options under the cache: each module
    compiles its kernels alone (the runtime was two thirds of a module of one kernel). None
    where it does not compile: the module then defines ``PRIM_EMU_RUNTIME`` and holds the
    runtime itself (its compile reports the header's errors)."""
    folder = _header_folder(argv, header, flags, cdir)
    obj = folder / "runtime.o"
    if obj.is_file():
        return obj
    folder.mkdir(parents=True, exist_ok=True)
    with _build_lock(folder / "lock"):
        if obj.is_file():
            return obj
        tmp = folder / f".tmp-{os.getpid()}.o"
        cmd = (
            argv + flags + ["-DPRIM_EMU_RUNTIME=1", "-x", "c++", str(header), "-c", "-o", str(tmp)]
        )
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True)
        except OSError:
            return None
        if proc.returncode != 0:
            tmp.unlink(missing_ok=True)
            return None
        os.replace(tmp, obj)
    return obj


def _build(
    argv: list[str],
    is_clang: bool,
    header: pathlib.Path,
    code: str,
    names: Sequence[str],
    incs: Iterable[str],
    opts: list[str],
    filename: str,
    so_path: pathlib.Path,
    cdir: pathlib.Path,
) -> None:
    with tempfile.TemporaryDirectory(prefix="prim-emu-") as tmp_dir:
        tmp = pathlib.Path(tmp_dir)
        src = tmp / "module.cpp"
        fname = filename.replace("\\", "/").replace('"', "'")
        src.write_text(f'#line 1 "{fname}"\n' + code + "\n" + _glue(names))
        ld = tmp / "shared.ld"
        ld.write_text(_LINKER_SCRIPT)
        fd, tmp_so = tempfile.mkstemp(prefix=".tmp-", suffix=".so", dir=str(cdir))
        os.close(fd)
        flags = _flags(is_clang, incs, opts)
        pch = None if is_clang else _precompiled_header(argv, header, flags, cdir)
        runtime = _runtime_object(argv, header, flags, cdir)
        cmd = list(argv) + flags[:2] + ["-shared", "-include", str(pch or header)] + flags[2:]
        if runtime is None:  # the runtime in the module itself
            cmd.append("-DPRIM_EMU_RUNTIME=1")
        cmd += ["-x", "c++", str(src), "-x", "none"]
        cmd += [str(runtime)] if runtime is not None else []
        cmd += ["-o", tmp_so]
        # The linker script gathers static shared memory (including the static locals of
        # templates) between two symbols, so that race mode can poison it; a linker that does not
        # take it still gets a working module (static shared memory then is not poisoned).
        try:
            proc = subprocess.run(
                cmd + [f"-Wl,-T,{ld}"], capture_output=True, text=True, cwd=str(tmp)
            )
            if proc.returncode != 0 and str(ld) in proc.stdout + proc.stderr:
                proc = subprocess.run(cmd, capture_output=True, text=True, cwd=str(tmp))
        except OSError as exc:
            os.unlink(tmp_so)
            raise EmulatorCompileError(
                f"emulator: cannot run {cmd[0]}: {exc}", "", names, cmd
            ) from exc
        if proc.returncode != 0:
            os.unlink(tmp_so)
            log = (proc.stdout + proc.stderr).strip() or "error: the compiler failed silently"
            raise EmulatorCompileError(
                f"emulator: compiling {filename}", log, names, cmd, _glue_expression(log, names)
            )
        os.replace(tmp_so, so_path)
