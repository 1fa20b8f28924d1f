"""Where `cmake --install --prefix PREFIX` puts the Python package (run by CMakeLists.txt at install time).

Prints two lines: the directory, and 1 when it is on this interpreter's path (one of its site
directories, the user site included), else 0. The directory is the site directory of this
interpreter under PREFIX with the fewest path components (Debian's /usr/bin/python3: /usr/local
-> /usr/local/lib/python3.X/dist-packages, /usr -> /usr/lib/python3/dist-packages, ~/.local -> the
user site ~/.local/lib/python3.X/site-packages); for a prefix that holds none,
PREFIX/lib/python3.X/site-packages, which PYTHONPATH must then name.
"""

import os
import site
import sys


def site_dir(prefix):
    prefix = os.path.realpath(prefix).rstrip("/") + "/"
    dirs = list(site.getsitepackages())
    if site.ENABLE_USER_SITE:
        dirs.append(site.getusersitepackages())
    under = [d for d in dirs if os.path.realpath(d).startswith(prefix)]
    if under:
        return min(under, key=lambda d: os.path.relpath(os.path.realpath(d), prefix).count("/")), True
    version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    return os.path.join(prefix, "lib", version, "site-packages"), False


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: site_dir.py PREFIX")
    directory, on_path = site_dir(sys.argv[1])
    print(directory)
    print(1 if on_path else 0)
