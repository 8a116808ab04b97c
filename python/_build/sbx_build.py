"""A minimal PEP 517 backend for the pure-Python sbx package: a wheel is a
zip of sbx/ plus dist-info, an sdist a tarball of this directory. Standard
library only, so pip needs nothing from an index to build it."""
import base64
import hashlib
import io
import os
import tarfile
import zipfile

NAME, VERSION = "sbx", "0.1.0"
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIST_INFO = "%s-%s.dist-info" % (NAME, VERSION)
METADATA = ("Metadata-Version: 2.1\nName: %s\nVersion: %s\n"
            "Summary: llama-eval's Sandbox on sbx-run --serve\n"
            "Requires-Python: >=3.8\n" % (NAME, VERSION))
WHEEL = ("Wheel-Version: 1.0\nGenerator: sbx_build\nRoot-Is-Purelib: true\n"
         "Tag: py3-none-any\n")


def _package_files():
    root = os.path.join(HERE, NAME)
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for f in sorted(filenames):
            if f.endswith(".py"):
                full = os.path.join(dirpath, f)
                yield full, os.path.relpath(full, HERE)


def _record_line(arcname, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "%s,sha256=%s,%d\n" % (arcname, digest.decode(), len(data))


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    name = "%s-%s-py3-none-any.whl" % (NAME, VERSION)
    record = ""
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w",
                         zipfile.ZIP_DEFLATED) as z:
        entries = [(arc, open(full, "rb").read()) for full, arc in _package_files()]
        entries += [(DIST_INFO + "/METADATA", METADATA.encode()),
                    (DIST_INFO + "/WHEEL", WHEEL.encode())]
        for arc, data in entries:
            z.writestr(arc, data)
            record += _record_line(arc, data)
        record += DIST_INFO + "/RECORD,,\n"
        z.writestr(DIST_INFO + "/RECORD", record)
    return name


def build_sdist(sdist_directory, config_settings=None):
    base = "%s-%s" % (NAME, VERSION)
    name = base + ".tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz") as t:
        for rel in ["pyproject.toml", "_build/sbx_build.py"] + \
                   [arc for _, arc in _package_files()]:
            t.add(os.path.join(HERE, rel), arcname=base + "/" + rel)
        info = tarfile.TarInfo(base + "/PKG-INFO")
        data = METADATA.encode()
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
    return name
