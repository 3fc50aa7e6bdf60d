"""Builds the extension mbt._mbt for `pip install ./python`: the package's C sources and
the library's own sources (../src) compiled together, against libxml2 (and SLEEF on x86-64
when present) found with pkg-config. The metadata is in pyproject.toml."""
import glob
import os
import platform
import shlex
import subprocess

import numpy
from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def pkg_config(*args):
    try:
        out = subprocess.run(["pkg-config", *args], check=True, capture_output=True, text=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    return shlex.split(out.stdout)


def library_flags():
    flags = pkg_config("--cflags", "--libs", "libxml-2.0")
    if flags is None:
        raise SystemExit("mbt: pkg-config cannot find libxml-2.0: install libxml2-dev "
                         "(scripts/install-deps.sh installs everything mbt needs)")
    macros = []
    sleef = pkg_config("--cflags", "--libs", "sleef")
    if sleef is not None and platform.machine() in ("x86_64", "AMD64", "amd64"):
        flags += sleef
        macros.append(("MBT_HAVE_SLEEF", None))
    hulls = pkg_config("--cflags", "--libs", "assimp", "qhull_r")  # mesh collision hulls
    if hulls is not None:
        flags += hulls
        macros.append(("MBT_HAVE_MESH_HULLS", None))
    return flags, macros


def relative(paths):
    return sorted(os.path.relpath(p, HERE) for p in paths)


flags, macros = library_flags()
sources = relative(glob.glob(os.path.join(HERE, "src", "*.c")) +
                   glob.glob(os.path.join(ROOT, "src", "**", "*.c"), recursive=True))
if not any(s.startswith("..") for s in sources):
    raise SystemExit("mbt: the library sources (../src) are missing: build from the repository")

extension = Extension(
    "mbt._mbt",
    sources=sources,
    include_dirs=[os.path.join(ROOT, "include"), os.path.join(ROOT, "src"), numpy.get_include()],
    define_macros=macros,
    extra_compile_args=["-std=c11", "-O3", "-fvisibility=hidden", "-pthread"] + [f for f in flags if f.startswith("-I")],
    extra_link_args=[f for f in flags if not f.startswith("-I")] + ["-lm", "-pthread"],
)

setup(ext_modules=[extension])
