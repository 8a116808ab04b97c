# evalplus_stubs DIR: stub modules for what only evalplus's downloads and
# code generation import (datasets, wget, tempdir, tree_sitter,
# tree_sitter_python), so that `python3 -m evalplus.evaluate` runs from its
# source tree on Debian's packages (sourced by bench/evalplus-*.sh).
evalplus_stubs() {
        mkdir -p "$1"
        echo 'def load_dataset(*a, **k): raise RuntimeError("stub")' > "$1/datasets.py"
        : > "$1/wget.py"
        : > "$1/tempdir.py"
        echo 'def language(): raise RuntimeError("stub")' > "$1/tree_sitter_python.py"
        printf 'class Language: pass\nclass Node: pass\nclass Parser: pass\n' > "$1/tree_sitter.py"
}
# What evalplus imports, as Debian packages.
EVALPLUS_DEBIAN_PACKAGES="python3-numpy python3-psutil python3-termcolor python3-tqdm python3-fire python3-rich python3-appdirs"
evalplus_imports_ok() {
        /usr/bin/python3 -c 'import numpy, psutil, termcolor, tqdm, fire, rich, appdirs' 2>/dev/null
}
