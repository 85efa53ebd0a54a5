"""pinned_sources.py without a network: an archive already fetched is found and not fetched again,
and refused where its sha256 is not the pin's (or where there are two), a member is read out of a
wheel and out of an sdist's top folder, and a file loads under its dotted name with its relative
imports answered by the modules provided under that name's parents. Needs nothing but Python (ctest
runs it with Debian's)."""
import hashlib
import sys
import tarfile
import zipfile

import pytest

import pinned_sources

MODULE = "from .helpers import twice\n\nVALUE = twice(21)\n"


def test_a_wheel_member_loads_with_its_relative_imports_provided(tmp_path, monkeypatch):
    monkeypatch.setattr(pinned_sources, "STORE", tmp_path)
    folder = tmp_path / "pkg-1.0"
    folder.mkdir()
    with zipfile.ZipFile(folder / "pkg-1.0-py3-none-any.whl", "w") as wheel:
        wheel.writestr("pkg/sub/kernel.py", MODULE)
    wheel_path = folder / "pkg-1.0-py3-none-any.whl"
    pinned = hashlib.sha256(wheel_path.read_bytes()).hexdigest()
    with pytest.raises(RuntimeError, match=f"has sha256 {pinned}, not the pinned 0000"):
        pinned_sources.archive("pkg", "1.0", "0" * 64)
    archive = pinned_sources.archive("pkg", "1.0", pinned)
    path = pinned_sources.extracted(archive, "pkg/sub/kernel.py")
    assert path == folder / "files" / "pkg" / "sub" / "kernel.py" and path.read_text() == MODULE
    for name in ("pkg", "pkg.sub", "pkg.sub.helpers", "pkg.sub.kernel"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    pinned_sources.provide("pkg")
    pinned_sources.provide("pkg.sub")
    pinned_sources.provide("pkg.sub.helpers", twice=lambda n: 2 * n)
    module = pinned_sources.load("pkg.sub.kernel", path)
    assert module.VALUE == 42 and sys.modules["pkg.sub.kernel"] is module
    assert pinned_sources.load("pkg.sub.kernel", path) is module  # loaded once


def test_an_sdist_member_is_read_under_its_top_folder(tmp_path, monkeypatch):
    monkeypatch.setattr(pinned_sources, "STORE", tmp_path)
    folder = tmp_path / "pkg-2.0"
    folder.mkdir()
    source = tmp_path / "kernel.py"
    source.write_text("VALUE = 7\n")
    with tarfile.open(folder / "pkg-2.0.tar.gz", "w:gz") as sdist:
        sdist.add(source, arcname="pkg-2.0/pkg/kernel.py")
    archive = pinned_sources.archive("pkg", "2.0", hashlib.sha256((folder / "pkg-2.0.tar.gz").read_bytes()).hexdigest(),
                                     sdist=True)
    assert pinned_sources.extracted(archive, "pkg/kernel.py").read_text() == "VALUE = 7\n"
    with pytest.raises(KeyError):
        pinned_sources.extracted(archive, "pkg/other.py")


def test_two_archives_of_one_pin_are_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(pinned_sources, "STORE", tmp_path)
    folder = tmp_path / "pkg-3.0"
    folder.mkdir()
    for name in ("pkg-3.0-py3-none-any.whl", "pkg-3.0-py2-none-any.whl"):
        (folder / name).write_bytes(b"")
    with pytest.raises(RuntimeError, match="holds 2 archives of pkg 3.0"):
        pinned_sources.archive("pkg", "3.0", "0" * 64)


def test_a_file_that_fails_to_load_is_not_left_registered(tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("raise ImportError('no')\n")
    with pytest.raises(ImportError):
        pinned_sources.load("pinned_sources_broken_example", broken)
    assert "pinned_sources_broken_example" not in sys.modules
