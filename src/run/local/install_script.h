// The Python program `PipStager` runs to install packages: `python3 -c kInstallScript TARGET
// FILE...` installs the package files into TARGET, in order, offline.
//
// pip spends about a second of its own on every install, most of it interpreters: itself, then
// `lsb_release`, `uname` and `rustc` for a user agent that no request (--no-index) ever carries,
// then `setup.py egg_info` and `setup.py bdist_wheel` for an sdist. So, in one interpreter:
// - a legacy sdist (a top directory with setup.py and no pyproject.toml, what `setup.py sdist`
//   and gcloud's packaging make) is built into a wheel in this process, as pip's bdist_wheel
//   would (setuptools imported first, setup.py run as __main__ in its directory); if that fails
//   for any reason the sdist goes to pip, which then reports the failure;
// - when every package is (or was built into) a pure wheel (py3-none-any; no .data but
//   purelib/platlib), the wheels are unpacked and byte-compiled, which is all pip would do;
// - anything else goes to pip (`--target --no-index --no-deps --no-build-isolation`), run in this
//   interpreter with a fixed user agent.
#pragma once

#include <string_view>

namespace trainyard::run::local {

constexpr std::string_view kInstallScript =
    R"py(import os, shutil, sys, tarfile, tempfile, warnings, zipfile
target, files = sys.argv[1], sys.argv[2:]
build_dirs = []

def build_wheel(path):
    if not path.endswith(".tar.gz"):
        return path
    work = tempfile.mkdtemp(prefix="trainyard-build-")
    build_dirs.append(work)
    cwd, argv, sys_path = os.getcwd(), sys.argv, list(sys.path)
    try:
        with tarfile.open(path) as sdist:
            for member in sdist.getmembers():
                if member.name.startswith("/") or ".." in member.name.split("/") or member.islnk() or member.issym():
                    return path
            sdist.extractall(work)
        tops = os.listdir(work)
        top = os.path.join(work, tops[0]) if len(tops) == 1 else work
        if not os.path.isfile(os.path.join(top, "setup.py")) or os.path.exists(os.path.join(top, "pyproject.toml")):
            return path
        out = os.path.join(work, "trainyard-wheel")
        import setuptools
        os.chdir(top)
        sys.argv = ["setup.py", "-q", "bdist_wheel", "-d", out]
        sys.path.insert(0, top)
        with open("setup.py", "rb") as setup:
            code = compile(setup.read(), os.path.join(top, "setup.py"), "exec")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # setuptools' deprecations, not the package's
            exec(code, {"__name__": "__main__", "__file__": os.path.join(top, "setup.py")})
        wheels = [name for name in os.listdir(out) if name.endswith(".whl")]
        return os.path.join(out, wheels[0]) if len(wheels) == 1 else path
    except BaseException as error:
        print("Building", os.path.basename(path), "here failed, pip builds it instead:", repr(error))
        return path
    finally:
        os.chdir(cwd)
        sys.argv, sys.path[:] = argv, sys_path
        # What setup.py imported from its own tree (its package, for a version) must not be
        # what the next package's setup.py imports under the same name.
        for name, module in list(sys.modules.items()):
            if (getattr(module, "__file__", None) or "").startswith(work + os.sep):
                del sys.modules[name]

def pure_wheel(path):
    if not path.endswith(("-py3-none-any.whl", "-py2.py3-none-any.whl")):
        return False
    with zipfile.ZipFile(path) as wheel:
        for name in wheel.namelist():
            parts = name.split("/")
            if name.startswith("/") or ".." in parts:
                return False
            if parts[0].endswith(".data") and len(parts) > 2 and parts[1] not in ("purelib", "platlib"):
                return False
    return True

def unpack(wheels):
    for path in wheels:
        with zipfile.ZipFile(path) as wheel:
            wheel.extractall(target)
        for data in [d for d in os.listdir(target) if d.endswith(".data")]:
            for lib in ("purelib", "platlib"):
                lib_dir = os.path.join(target, data, lib)
                for entry in os.listdir(lib_dir) if os.path.isdir(lib_dir) else []:
                    os.rename(os.path.join(lib_dir, entry), os.path.join(target, entry))
            shutil.rmtree(os.path.join(target, data))
    import compileall
    compileall.compile_dir(target, quiet=2)

def clear_target():
    for entry in os.listdir(target):
        path = os.path.join(target, entry)
        shutil.rmtree(path) if os.path.isdir(path) and not os.path.islink(path) else os.remove(path)

def run_pip(packages):
    args = ["install", "--no-index", "--no-deps", "--no-build-isolation", "--disable-pip-version-check",
            "--no-input", "--no-cache-dir", "--no-warn-script-location", "--target", target] + packages
    try:
        import pip._internal.network.session
        pip._internal.network.session.user_agent = lambda: "pip (trainyard)"
        from pip._internal.cli.main import main
    except Exception:
        import runpy
        sys.argv = ["pip"] + args
        runpy.run_module("pip", run_name="__main__", alter_sys=True)
        return 0
    return main(args)

try:
    wheels = [build_wheel(path) for path in files]
    status = None
    try:
        if wheels and all(pure_wheel(path) for path in wheels):
            unpack(wheels)
            print("Unpacked", ", ".join(os.path.basename(path) for path in wheels), "(pure wheels)")
            status = 0
    except (OSError, zipfile.BadZipFile) as error:
        print("Unpacking failed, pip installs instead:", error)
        clear_target()
    if status is None:
        status = run_pip(wheels)
finally:
    for work in build_dirs:
        shutil.rmtree(work, ignore_errors=True)
sys.exit(status)
)py";

}  // namespace trainyard::run::local
