"""Upstream source files that no package install gives: flash-attn's sdist compiles CUDA when
installed, and Unsloth's and xformers' packages import far more than one kernel file and probe
for a GPU as they are imported. The adapter names a pinned distribution and the files it needs;
pip fetches the distribution into the running environment (`pip download --no-deps`, checked
against the pinned sha256 by `--require-hashes`), the files are read out of its archive, and each
is loaded by path as a module under its own dotted name. The modules a file imports that would
probe a device or pull the rest of its package are supplied by the adapter, as modules it
registers here before loading; no line of an upstream file is changed.
"""
import hashlib
import importlib.util
import os
import pathlib
import subprocess
import sys
import tarfile
import tempfile
import types
import zipfile

# Fetched archives and the files read out of them, inside the environment that fetched them.
STORE = pathlib.Path(sys.prefix) / "upstream-files"


def archive(distribution, version, sha256, sdist=False, environment=None):
    """The distribution's archive (a wheel, or the sdist where `sdist`), fetched by pip on first
    use, and its sha256 checked against the pin each time. pip prepares an sdist's metadata by running its setup.py in this environment
    (--no-build-isolation), with `environment` added to os.environ."""
    folder = STORE / f"{distribution}-{version}"
    found = sorted(folder.glob("*.tar.gz" if sdist else "*.whl")) if folder.is_dir() else []
    if not found:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", suffix=".txt") as pins:
            pins.write(f"{distribution}=={version} --hash=sha256:{sha256}\n")
            pins.flush()
            command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--require-hashes",
                       "-r", pins.name, "-d", str(folder)]
            command += ["--no-binary", ":all:", "--no-build-isolation"] if sdist else ["--only-binary", ":all:"]
            subprocess.run(command, check=True, env=dict(os.environ, **(environment or {})))
        found = sorted(folder.glob("*.tar.gz" if sdist else "*.whl"))
    if len(found) != 1:
        raise RuntimeError(f"{folder} holds {len(found)} archives of {distribution} {version}; expected one")
    digest = hashlib.sha256(found[0].read_bytes()).hexdigest()
    if digest != sha256:
        raise RuntimeError(f"{found[0]} has sha256 {digest}, not the pinned {sha256}: remove it to fetch it again")
    return found[0]


def extracted(archive_path, member):
    """The path of `member` (a path inside the package, e.g. flash_attn/ops/triton/rotary.py) read
    out of the archive, beside it; an sdist's members sit under its top folder."""
    target = archive_path.parent / "files" / member
    if target.is_file():
        return target
    if archive_path.suffix == ".whl":
        with zipfile.ZipFile(archive_path) as wheel:
            data = wheel.read(member)
    else:
        with tarfile.open(archive_path) as sdist:
            top = archive_path.name[: -len(".tar.gz")]
            handle = sdist.extractfile(f"{top}/{member}")
            if handle is None:
                raise KeyError(f"{archive_path.name} has no file {member}")
            data = handle.read()
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    return target


def provide(name, **attributes):
    """Registers a module `name` holding `attributes` (a package, where files load under it), so
    that a loaded file's `import name` or `from name import x` finds it instead of the real one."""
    module = types.ModuleType(name)
    module.__path__ = []
    module.__dict__.update(attributes)
    sys.modules[name] = module
    return module


def load(name, path):
    """The file at `path` executed as module `name` (its relative imports resolve against the
    modules registered under name's parents) and registered under that name."""
    if name in sys.modules and getattr(sys.modules[name], "__file__", None) == str(path):
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module
