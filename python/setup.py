"""setuptools hook for pyproject.toml: the package also carries the analysis scripts of the
repository's experiments/analysis (as sketchmm/_analysis, which sketchmm.results runs), copied at
build time since they live outside this directory. Metadata: pyproject.toml."""

import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

ANALYSIS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "experiments", "analysis")


class build_py_with_analysis(build_py):
    def run(self):
        super().run()
        target = os.path.join(self.build_lib, "sketchmm", "_analysis")
        os.makedirs(target, exist_ok=True)
        for name in ("load_results.py", "plot_sweep.py"):
            source = os.path.join(ANALYSIS, name)
            if os.path.isfile(source):
                shutil.copy(source, target)


setup(cmdclass={"build_py": build_py_with_analysis})
