"""Empty stand-ins for two modules causal-learn imports for parts the benchmarks never call
(momentchi2 for its RCIT test, tqdm for progress bars), put in place by install() when they
are not installed.  The drivers beside this file (pc-kci-causal-learn.py,
fci-causal-learn.py) call it before importing causal-learn."""
import sys
import types


def stand_in(name, **attrs):
    """An empty module called name holding attrs."""
    module = types.ModuleType(name)
    module.__dict__.update(attrs)
    sys.modules[name] = module


def passthrough(it=None, *args, **kw):
    """tqdm's stand-in: the iterable itself."""
    return it


def install():
    """Put the stand-ins in place of the modules that are missing."""
    try:
        import momentchi2  # noqa: F401
    except ImportError:
        stand_in("momentchi2", hbe=None, sw=None, lpb4=None)
    try:
        import tqdm.auto  # noqa: F401
    except ImportError:
        stand_in("tqdm", tqdm=passthrough)
        stand_in("tqdm.auto", tqdm=passthrough)
