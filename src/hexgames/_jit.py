"""numba set-up shared by the compiled rules cores (``benediction.core``, ``dendria.core``).

Game-agnostic: any game package may put its compiled core behind :func:`njit`.
Compiled code is cached on disk so that only the first use on a machine compiles. numba
keeps its cache next to the sources (``__pycache__``); for an installed, read-only
package this module points ``NUMBA_CACHE_DIR`` at a user cache directory
(``$XDG_CACHE_HOME/hexgames/numba``, else ``~/.cache/hexgames/numba``) before numba is
imported. :func:`is_cached` tells whether a module's kernels are already on disk, so
that callers can say "compiling the rules engine, once..." instead of looking hung.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

_HERE = Path(__file__).resolve().parent


def _subpackages() -> list[Path]:
    """The package's subpackages: numba caches next to the sources of the compiled cores
    they hold (and next to the package's own compiled modules, such as ``_ctree``)."""
    return [path for path in _HERE.iterdir() if (path / "__init__.py").is_file()]


def user_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(Path.home(), ".cache")
    return Path(base) / "hexgames" / "numba"


def _writable(directory: Path) -> bool:
    target = directory / "__pycache__"
    try:
        target.mkdir(exist_ok=True)
    except OSError:
        return False
    return os.access(target, os.W_OK)


def ensure_cache_dir() -> None:
    """Point numba at a writable cache directory when the package is not writable."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    if _writable(_HERE) and all(_writable(path) for path in _subpackages()):
        return
    path = user_cache_dir()
    path.mkdir(parents=True, exist_ok=True)
    os.environ["NUMBA_CACHE_DIR"] = str(path)
    if "numba" in sys.modules:  # imported before us: its config read the old value
        import numba

        numba.config.CACHE_DIR = str(path)  # type: ignore[attr-defined]


ensure_cache_dir()

from numba import njit as _njit  # noqa: E402


def signed64(value: int) -> int:
    """A 64-bit key (any Python int) as the signed int64 the compiled code stores."""
    value &= (1 << 64) - 1
    return value - (1 << 64) if value >= 1 << 63 else value


#: numba's options for every compiled function of hexgames (``no_cfunc_wrapper`` and
#: ``_nrt`` are target options its type hints leave out).
_COMPILED: dict[str, Any] = {"cache": True, "error_model": "numpy", "no_cfunc_wrapper": True}
_INNER: dict[str, Any] = {"no_cpython_wrapper": True}


def _compiled(function: Any, inner: bool, nrt: bool) -> Any:
    """numba's decorator with hexgames' options, applied to ``function`` when given
    (``@njit``) or returned (``@njit(nrt=False)``)."""
    # ``_nrt`` is set either way: a function whose option is unset inherits its caller's
    decorator = _njit(**{**_COMPILED, **(_INNER if inner else {}), "_nrt": nrt})
    return decorator if function is None else decorator(function)


def njit(function: Any = None, *, nrt: bool = True) -> Any:
    """``numba.njit(cache=True)`` (numpy error model: no ZeroDivision checks), without
    the C-callable wrapper numba adds for first-class function use, which hexgames
    never makes (one less wrapper to compile per function on a cold start).

    ``nrt=False`` compiles without numba's runtime, which counts references to arrays:
    every array a function takes from a tuple, slices or hands on costs an atomic
    increment and decrement, and the cores pass a tuple of a dozen table arrays to
    every helper (in Dendria's step and legal-list code the counting was a third of
    the time and most of the compiled code). A function may go without it when it only
    borrows arrays its caller holds: it makes no array (numba refuses to compile
    ``np.empty``, a slice copy or an array expression there, so a wrong flag is a
    compile error, never a leak) and returns none it did not receive. Usable as
    ``@njit`` or ``@njit(nrt=False)``."""
    return _compiled(function, False, nrt)


def njit_inner(function: Any = None, *, nrt: bool = True) -> Any:
    """:func:`njit` for a function that only compiled code calls: no Python entry.

    numba gives every compiled function a CPython wrapper that unboxes its arguments
    from Python objects; for the rules cores' table tuples (a dozen arrays) that wrapper
    is much larger than a small function itself, and building it for every helper cost
    about a quarter of a cold start. A call from Python to such a function does not
    raise, it crashes the interpreter: ``tests/test_jit_inner.py`` checks that no Python
    code names one."""
    return _compiled(function, True, nrt)


def drop_stale_cache(module: str, *dependencies: str) -> None:
    """Drop the cached compiled code of ``module`` when a source it calls into changed.

    numba keys a function's disk cache to its own source file only, yet the machine code
    it saves has the compiled functions it calls from other modules built in: after an
    update that changed only ``core.py``, ``_search.run`` would load its old code, with
    the old core inside (a silent mismatch, e.g. of a buffer layout). So each module
    whose compiled code calls into others names them (file paths) at the end of its
    import; a digest of their sources is kept beside the module's cache, and when it
    differs the module's cached code is deleted (compiled afresh on first use). Never
    fails an import: without a writable cache there is nothing to drop."""
    import hashlib

    mod = sys.modules[module]
    caches = [
        value._cache for value in vars(mod).values()
        if getattr(getattr(value, "py_func", None), "__module__", None) == module
        and getattr(value, "_cache", None) is not None
    ]
    if not caches:
        return
    try:
        digest = hashlib.sha256()
        for path in sorted(dependencies):
            digest.update(Path(path).read_bytes())
        wanted = digest.hexdigest()
        folder = Path(caches[0].cache_path)
        stem = Path(mod.__file__ or "").stem
        stamp = folder / f"{stem}.deps"
        if stamp.exists() and stamp.read_text(encoding="ascii") == wanted:
            return
        # drop the module's index and data files (a process loading them meanwhile
        # just compiles: numba treats a missing file as not cached)
        for pattern in (f"{stem}.*.nbi", f"{stem}.*.nbc"):
            for old in folder.glob(pattern):
                old.unlink(missing_ok=True)
        folder.mkdir(parents=True, exist_ok=True)
        stamp.write_text(wanted, encoding="ascii")
    except (OSError, AttributeError, ValueError):
        return


def is_cached(module: str, functions: tuple[str, ...] = ()) -> bool:
    """Whether compiled code of ``module`` (e.g. ``"hexgames.dendria.core"``) is in the
    cache already (its index files exist); with ``functions``, whether each of these
    functions of it has its index there (numba keeps one per function)."""
    source = Path(sys.modules[module].__file__ or "") if module in sys.modules else None
    if source is None:
        return False
    cache_dir = os.environ.get("NUMBA_CACHE_DIR")
    # numba keeps each source folder's files in a folder named after it and a hash of
    # its path: ``core.*`` of another package's folder is not this module's
    folders = (list(Path(cache_dir).glob(f"{source.parent.name}_*")) if cache_dir
               else [source.parent / "__pycache__"])
    patterns = [f"{source.stem}.{name}-*.nbi" for name in functions] or [f"{source.stem}.*.nbi"]
    return all(any(any(folder.glob(pattern)) for folder in folders) for pattern in patterns)


def _view_intrinsic() -> Any:
    from numba.core import cgutils, types
    from numba.core.imputils import impl_ret_borrowed
    from numba.extending import intrinsic
    from numba.np.arrayobj import make_array, populate_array

    @intrinsic
    def view_nd(typingctx: Any, array: Any, shape: Any) -> Any:
        """``array.reshape(shape)`` for a C-contiguous array whose size the caller
        guarantees to be the product of ``shape`` (a tuple of integers): a view built
        directly, without numba's general reshape (which checks and may copy; several
        hundred nanoseconds per call boundary where a kernel unpacks its tables)."""
        if not isinstance(array, types.Array) or array.layout != "C":
            return None
        items: tuple[Any, ...] = getattr(shape, "types", ())  # a Tuple or a UniTuple
        if not items or not all(isinstance(t, types.Integer) for t in items):
            return None
        ndim = len(items)
        result = array.copy(ndim=ndim, layout="C")

        def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
            src = make_array(sig.args[0])(context, builder, args[0])
            dst = make_array(result)(context, builder)
            dims = [
                context.cast(builder, d, t, types.intp)
                for d, t in zip(cgutils.unpack_tuple(builder, args[1], ndim), items,
                                strict=True)
            ]
            stride = context.get_constant(types.intp, context.get_abi_sizeof(
                context.get_data_type(array.dtype)))
            strides = []
            for d in reversed(dims):
                strides.append(stride)
                stride = builder.mul(stride, d)
            strides.reverse()
            populate_array(
                dst, data=src.data, shape=tuple(dims), strides=tuple(strides),
                itemsize=src.itemsize, meminfo=src.meminfo, parent=src.parent,
            )
            return impl_ret_borrowed(context, builder, result, dst._getvalue())

        return result(array, shape), codegen

    @intrinsic
    def view_as(typingctx: Any, array: Any, dtype: Any) -> Any:
        """``array.view(dtype)`` for a 1-d C-contiguous array whose byte length and
        address the caller guarantees to suit ``dtype`` (``np.int32``, ``np.bool_``...):
        built directly, because numba's ``view`` compiles its compatibility checks with
        their message formatting (about 0.3 s of a cold start for each pair of types)."""
        if not isinstance(array, types.Array) or array.layout != "C" or array.ndim != 1:
            return None
        target = getattr(dtype, "instance_type", getattr(dtype, "dtype", None))
        if not isinstance(target, (types.Number, types.Boolean)):
            return None
        result = array.copy(dtype=target, ndim=1, layout="C")

        def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
            src = make_array(sig.args[0])(context, builder, args[0])
            dst = make_array(result)(context, builder)
            itemsize = context.get_constant(types.intp, context.get_abi_sizeof(
                context.get_data_type(target)))
            length = builder.udiv(builder.mul(src.nitems, src.itemsize), itemsize)
            data = builder.bitcast(src.data, context.get_data_type(target).as_pointer())
            populate_array(
                dst, data=data, shape=(length,), strides=(itemsize,), itemsize=itemsize,
                meminfo=src.meminfo, parent=src.parent,
            )
            return impl_ret_borrowed(context, builder, result, dst._getvalue())

        return result(array, dtype), codegen

    return view_nd, view_as


#: ``view_nd(a, shape)``: a C-contiguous view of ``a`` with ``shape``, for compiled code;
#: ``view_as(a, dtype)``: a 1-d C-contiguous ``a`` seen as ``dtype`` (``a.view(dtype)``).
view_nd, view_as = _view_intrinsic()


def direct(dispatcher: Any, args: tuple[Any, ...]) -> Any:
    """The compiled code of ``dispatcher`` for the types of ``args``, callable without
    numba's per-call type dispatch (about 0.4 µs less per call with seven arguments),
    once a call with such arguments has compiled or loaded it; else ``dispatcher``.

    Only for a caller that always passes arguments of exactly these types (the code
    reads them as such: an array of another dtype would be misread). Falls back to the
    dispatcher when numba does not expose its compiled overloads (``NUMBA_DISABLE_JIT``,
    another numba)."""
    overloads = getattr(dispatcher, "overloads", None)
    if not overloads:
        return dispatcher
    from numba import typeof

    try:
        signature = tuple(typeof(a) for a in args)
    except ValueError:
        return dispatcher
    compiled = overloads.get(signature)
    return getattr(compiled, "entry_point", None) or dispatcher
