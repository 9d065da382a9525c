"""The feedback loop: what a first test run says is missing, mapped to an extra, a group or a package.

Read from the runs with the fix: skip reasons (``pytest.importorskip``'s ``could not import 'cryptography': No
module named 'cryptography'``, a ``skipif`` reason naming a declared dependency such as ``cryptography is not
installed``), collection errors and test errors (``ModuleNotFoundError: No module named 'pretend'``). A missing
module becomes the extra or dependency group that declares its distribution (``needs.TestNeeds.provider``), else
the distribution itself. Never the project's own modules (a module the fix adds is missing before it, by design)
nor the standard library's.
"""

import re
import sys

from packaging.utils import canonicalize_name

from repo2env.languages.python.needs import TestNeeds, distribution
from repo2env.languages.python.project import ProjectFiles

_MISSING = (re.compile(r"No module named ['\"]?([A-Za-z_][\w.]*)"),
            re.compile(r"could not import ['\"]([A-Za-z_][\w.]*)['\"]"))
_NEEDS_WORDS = re.compile(r"\b(install|import|requir|need|missing|unavailable|not available|not found|no module)",
                          re.IGNORECASE)
# Import names whose distribution is named otherwise (the common cases; others are tried under their own name).
DISTRIBUTION_OF = {
    "yaml": "PyYAML", "PIL": "Pillow", "cv2": "opencv-python-headless", "sklearn": "scikit-learn",
    "dateutil": "python-dateutil", "bs4": "beautifulsoup4", "Crypto": "pycryptodome", "Cryptodome": "pycryptodomex",
    "jose": "python-jose", "jwt": "PyJWT", "magic": "python-magic", "serial": "pyserial", "attr": "attrs",
    "OpenSSL": "pyOpenSSL", "nacl": "PyNaCl", "dns": "dnspython", "git": "GitPython", "zmq": "pyzmq",
    "google.protobuf": "protobuf", "Levenshtein": "python-Levenshtein", "skimage": "scikit-image",
    "docx": "python-docx", "pptx": "python-pptx", "slugify": "python-slugify", "dotenv": "python-dotenv",
    "multipart": "python-multipart", "mpl_toolkits": "matplotlib", "pkg_resources": "setuptools",
    "setuptools_scm": "setuptools-scm", "typing_extensions": "typing-extensions", "importlib_metadata":
    "importlib-metadata", "importlib_resources": "importlib-resources", "ruamel": "ruamel.yaml", "lxml": "lxml",
    "win32api": "pywin32", "win32con": "pywin32", "pythoncom": "pywin32", "usb": "pyusb", "socks": "PySocks",
    "Xlib": "python-xlib", "gi": "PyGObject", "wx": "wxPython", "hamcrest": "PyHamcrest", "jinja2": "Jinja2",
    "markdown": "Markdown", "pytest_asyncio": "pytest-asyncio", "pytest_mock": "pytest-mock",
}
# ("test": CPython's own regression-test package, which python:X-slim images leave out and PyPI does not have)
NOT_INSTALLABLE = frozenset({"win32api", "win32con", "pythoncom", "winreg", "_winapi", "msvcrt", "gi", "wx", "imp",
                             "test"})
# Standard-library modules later Pythons removed (PEP 594 and earlier): missing on the image's Python, they come
# from PyPI where a backport exists (``distutils`` from setuptools), else they are not a package to install.
REMOVED_STDLIB = {"distutils": "setuptools", "asynchat": "pyasynchat", "asyncore": "pyasyncore",
                  "smtpd": "aiosmtpd", "imp": None, "cgi": "legacy-cgi", "cgitb": "legacy-cgi", "crypt": None,
                  "imghdr": "standard-imghdr", "mailcap": None, "nntplib": None, "pipes": None, "sndhdr": None,
                  "telnetlib": "telnetlib-313-and-up", "uu": None, "xdrlib": None, "audioop": "audioop-lts",
                  "chunk": None, "aifc": None, "sunau": None, "nis": None, "ossaudiodev": None, "spwd": None,
                  "msilib": None, "lib2to3": None}
# Namespace packages: the distribution is named by the first two parts (azure.storage -> azure-storage).
NAMESPACES = frozenset({"azure", "google", "zope", "backports", "jaraco", "sphinxcontrib", "flufl", "oslo", "plone",
                        "z3c", "collective", "ruamel", "paste", "repoze", "opentelemetry", "keystoneauth1"})


def missing_modules(messages: dict[str, str]) -> dict[str, str]:
    """Module (as imported, dotted) -> the first message that says it is missing, from ``messages`` (node id or
    file -> message)."""
    found: dict[str, str] = {}
    for _, message in sorted(messages.items()):
        for pattern in _MISSING:
            for m in pattern.finditer(message):
                found.setdefault(m.group(1).rstrip("."), message)
    return found


def _own_modules(pf: ProjectFiles) -> set[str]:
    """Names the repository itself provides: top-level entries (also under ``src/`` and ``lib/``), every
    package folder (one with ``__init__.py``) anywhere, and what sits directly in a test folder (``tests/
    helpers.py``, ``tests/helpers/``: imported as ``helpers`` with the test folder on ``sys.path``; a test
    folder named like a dependency shadows it there anyway)."""
    names = set()
    for path in pf.tree:
        parts = path.split("/")
        if parts[0] in ("src", "lib") and len(parts) > 2:
            parts = parts[1:]
        names.add(parts[0][:-3] if parts[0].endswith(".py") else parts[0])
        if parts[-1] == "__init__.py" and len(parts) > 1:
            names.add(parts[-2])
        if len(parts) >= 2 and parts[0] in ("test", "tests", "testing"):
            names.add(parts[1][:-3] if parts[1].endswith(".py") else parts[1])
    return names


def distribution_for(module: str) -> str | None:
    """The distribution that provides ``module`` (``yaml`` -> PyYAML; ``google.protobuf`` -> protobuf;
    ``azure.storage`` -> azure-storage; ``distutils`` -> setuptools); None for a removed standard module without
    a backport."""
    parts = module.split(".")
    for name in (module, ".".join(parts[:2]), parts[0]):
        if name in DISTRIBUTION_OF:
            return DISTRIBUTION_OF[name]
    if parts[0] in REMOVED_STDLIB:
        return REMOVED_STDLIB[parts[0]]
    if parts[0] in NAMESPACES and len(parts) > 1:
        return "-".join(parts[:2]).replace("_", "-")
    return parts[0].replace("_", "-")


def additions(pf: ProjectFiles, needs: TestNeeds, skips: dict[str, str], errors: dict[str, str],
              have: dict[str, dict[str, str]]) -> dict[str, dict[str, str]]:
    """Parts to add (kind -> {name: why}) for what the runs say is missing (``skips``: skip reasons, ``errors``:
    collection and test error messages; node id or file -> message), leaving out what ``have`` (the plan's added
    parts, kind -> names) and the base recipe already hold. Empty when nothing can be added."""
    own = _own_modules(pf)
    stdlib = set(sys.stdlib_module_names) - set(REMOVED_STDLIB)
    out: dict[str, dict[str, str]] = {}
    present = {kind: set(names) for kind, names in have.items()}
    present.setdefault("extra", set()).update(needs.extras)
    present.setdefault("group", set()).update(needs.groups)
    present.setdefault("package", set()).update(distribution(p) or p for p in needs.packages)

    def add(kind: str, name: str, why: str) -> None:
        if name not in present.setdefault(kind, set()):
            present[kind].add(name)
            out.setdefault(kind, {})[name] = why

    for module, message in missing_modules({**errors, **skips}).items():
        top = module.split(".")[0]
        if top in own or top in stdlib or top in NOT_INSTALLABLE or top.startswith("_"):
            continue
        dist = distribution_for(module)
        if dist is None:
            continue
        why = f"tests said: {message.strip()[:160]}"
        dotted = "-".join(module.split(".")[:2])
        provider = needs.provider(dist) or (needs.provider(dotted) if "." in module else None)
        if provider:
            add(provider[0], provider[1], why)
        else:
            add("package", canonicalize_name(dist), why)
    # A skip reason that names a declared dependency without the "No module named" wording.
    declared = {}
    for kind, table in (("extra", needs.declared_extras), ("group", needs.declared_groups)):
        for name, reqs in table.items():
            for req in reqs:
                m = re.match(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)", req)
                if m and len(m.group(1)) > 3:
                    declared.setdefault(canonicalize_name(m.group(1)), (kind, name))
    for _, message in sorted(skips.items()):
        if not _NEEDS_WORDS.search(message):
            continue
        words = {canonicalize_name(w) for w in re.findall(r"[A-Za-z][\w.-]*[A-Za-z0-9]", message)}
        for dist in sorted(words & set(declared)):
            kind, name = needs.provider(dist) or declared[dist]
            add(kind, name, f"tests said: {message.strip()[:160]}")
    return out


# What a failed install says -> the Debian packages that supply it (a C extension built from an sdist: no
# compiler in the slim image, or a library's headers missing).
SYSTEM_NEEDS = (
    (re.compile(r"autoconf error|command '(?:x86_64-linux-gnu-)?gcc' failed|unable to execute '?gcc|gcc: (?:command )?"
                r"not found|error: command 'cc' failed|No such file or directory: 'gcc'|C compiler cannot create|"
                r"Microsoft Visual C\+\+|Failed to build .* extension|cc1: |fatal error: [\w/.]+\.h: No such file",
                re.IGNORECASE), ("build-essential",)),
    (re.compile(r"pg_config (?:executable )?not found|libpq-fe\.h", re.IGNORECASE), ("libpq-dev",)),
    (re.compile(r"ffi\.h|libffi", re.IGNORECASE), ("libffi-dev",)),
    (re.compile(r"openssl/\w+\.h|libssl", re.IGNORECASE), ("libssl-dev",)),
    (re.compile(r"libxml/\w+\.h|libxslt|xmlversion\.h", re.IGNORECASE), ("libxml2-dev", "libxslt1-dev")),
    (re.compile(r"jpeglib\.h|libjpeg", re.IGNORECASE), ("libjpeg-dev",)),
    (re.compile(r"zlib\.h", re.IGNORECASE), ("zlib1g-dev",)),
    (re.compile(r"mysql_config not found|mysql\.h", re.IGNORECASE), ("default-libmysqlclient-dev", "pkg-config")),
    (re.compile(r"yaml\.h", re.IGNORECASE), ("libyaml-dev",)),
)


def system_packages(log: str) -> dict[str, str]:
    """Debian packages (name -> why) that a failed install's ``log`` says are missing: a compiler
    (``build-essential``) when a C extension cannot be built, with the headers it names."""
    found: dict[str, str] = {}
    for pattern, packages in SYSTEM_NEEDS:
        m = pattern.search(log)
        if m:
            for name in packages:
                found.setdefault(name, f"the install said: {m.group(0)[:120]}")
    if found and "build-essential" not in found:
        found["build-essential"] = "headers are only of use with a compiler"
    return found
