"""The kit's Python as importable modules: the scripts directory (src/main/python, at the classpath path the Java
loads them from) goes first on sys.path, as each script puts its own directory there when it runs."""

import os
import sys

SCRIPTS = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "main", "python", "dev", "codeagent", "kit",
                                       "sandbox"))
sys.path.insert(0, SCRIPTS)
