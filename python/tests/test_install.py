"""Finding the library, and the two ways of installing the package: cmake --install into a scratch prefix
(from the build that made SKETCHMM_LIBRARY, when it is a CMake build directory) and pip install --target."""

import os
import shutil
import subprocess
import sys

import pytest
from conftest import PYTHON_DIR

import sketchmm

IMPORT_CHECK = ("import sketchmm, numpy as np; print(sketchmm.__file__); print(sketchmm.library_path); "
                "print(sketchmm.matmul(np.eye(2), np.ones((2, 2))).sum())")


def _run(env_changes, cwd, code=IMPORT_CHECK):
    env = dict(os.environ)
    for name, value in env_changes.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True)


def test_missing_library_message(tmp_path):
    r = _run({"SKETCHMM_LIBRARY": str(tmp_path / "nowhere.so"), "PYTHONPATH": PYTHON_DIR}, tmp_path)
    assert r.returncode != 0
    assert "ImportError" in r.stderr and "SKETCHMM_LIBRARY" in r.stderr and "nowhere.so" in r.stderr
    assert "cmake --install" in r.stderr and "find_library" in r.stderr


def test_environment_variable_first(tmp_path):
    r = _run({"PYTHONPATH": PYTHON_DIR}, tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[1] == sketchmm.library_path


def _build_dir():
    library = os.environ.get("SKETCHMM_LIBRARY", "")
    directory = os.path.dirname(os.path.abspath(library)) if library else ""
    return directory if os.path.isfile(os.path.join(directory, "cmake_install.cmake")) else None


@pytest.mark.skipif(_build_dir() is None or shutil.which("cmake") is None,
                    reason="SKETCHMM_LIBRARY is not in a CMake build directory")
def test_cmake_install(tmp_path):
    prefix = tmp_path / "prefix"
    r = subprocess.run(["cmake", "--install", _build_dir(), "--prefix", str(prefix)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    site = [line.split("PYTHONPATH=")[1] for line in r.stdout.splitlines() if "PYTHONPATH=" in line]
    assert len(site) == 1 and site[0].startswith(str(prefix))  # a scratch prefix is not on the path: it says so
    r = _run({"SKETCHMM_LIBRARY": None, "PYTHONPATH": site[0]}, tmp_path)  # found through _paths.py
    assert r.returncode == 0, r.stderr
    package, library, total = r.stdout.splitlines()
    assert package.startswith(site[0]) and library.startswith(str(prefix)) and float(total) == 4.0
    assert os.path.isfile(os.path.join(site[0], "sketchmm", "_analysis", "plot_sweep.py"))
    # the results loader finds the sketchmm_sweep installed with it (its rows checks), through _paths.py
    code = "import sketchmm; print(sketchmm.results.analysis_module('load_results').find_sweep())"
    r = _run({"SKETCHMM_LIBRARY": None, "SKETCHMM_SWEEP": None, "PYTHONPATH": site[0]}, tmp_path, code)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str(prefix / "bin" / "sketchmm_sweep")


def test_site_dir_rules(tmp_path):
    sys.path.insert(0, PYTHON_DIR)
    try:
        import site

        from site_dir import site_dir
    finally:
        sys.path.remove(PYTHON_DIR)
    for directory in site.getsitepackages():
        prefix = os.path.dirname(os.path.dirname(os.path.dirname(directory)))
        found, on_path = site_dir(prefix)
        assert on_path and found in site.getsitepackages()
    found, on_path = site_dir(str(tmp_path))
    assert not on_path and found.startswith(str(tmp_path)) and found.endswith("site-packages")


@pytest.mark.skipif(subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True).returncode != 0,
                    reason="pip is not installed (Debian: python3-pip)")
def test_pip_install(tmp_path):
    source = tmp_path / "python"
    shutil.copytree(PYTHON_DIR, source, ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
    analysis = os.path.join(os.path.dirname(PYTHON_DIR), "experiments", "analysis")
    shutil.copytree(analysis, tmp_path / "experiments" / "analysis")  # the copy keeps the repository's layout
    target = tmp_path / "target"
    r = subprocess.run([sys.executable, "-m", "pip", "install", "--no-build-isolation", "--no-deps", "--no-index",
                        "--target", str(target), str(source)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    r = _run({"PYTHONPATH": str(target)}, tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0].startswith(str(target))
    assert os.path.isfile(target / "sketchmm" / "_analysis" / "load_results.py")
