"""split_archive: artifacts that share a folder come from one archive of it, each as the engine would have
archived it alone (its own entry, renamed to its last component, and what is below it)."""

import io
import tarfile

from repo2env.checks.separate_verifier import split_archive


def _folder_tar(entries: dict[str, bytes | None]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for name, data in entries.items():
            info = tarfile.TarInfo(name)
            info.mtime, info.mode = 1_700_000_000, 0o644
            if data is None:
                info.type, info.mode = tarfile.DIRTYPE, 0o755
                tar.addfile(info)
            else:
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _contents(data: bytes) -> dict[str, bytes | None]:
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        return {m.name: (tar.extractfile(m).read() if m.isfile() else None) for m in tar.getmembers()}


def test_each_artifact_is_its_own_entry_and_an_absent_one_is_left_out():
    whole = _folder_tar({"pkg": None, "pkg/a.py": b"A = 1\n", "pkg/b.py": b"B = 2\n", "pkg/sub": None,
                         "pkg/sub/c.py": b"C = 3\n", "pkg/ab.py": b"not a\n"})
    parts = split_archive(whole, ["/w/pkg/a.py", "/w/pkg/sub", "/w/pkg/gone.py"])
    assert set(parts) == {"/w/pkg/a.py", "/w/pkg/sub"}
    assert _contents(parts["/w/pkg/a.py"]) == {"a.py": b"A = 1\n"}  # not ab.py, whose name starts the same
    assert _contents(parts["/w/pkg/sub"]) == {"sub": None, "sub/c.py": b"C = 3\n"}


def test_the_same_input_gives_the_same_bytes():
    whole = _folder_tar({"pkg": None, "pkg/a.py": b"A\n", "pkg/b.py": b"B\n"})
    assert split_archive(whole, ["/w/pkg/a.py", "/w/pkg/b.py"]) == split_archive(whole, ["/w/pkg/a.py", "/w/pkg/b.py"])


def test_a_folder_replaced_by_a_symlink_yields_nothing():
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        info = tarfile.TarInfo("pkg")
        info.type, info.linkname = tarfile.SYMTYPE, "/etc"
        tar.addfile(info)
    assert split_archive(buffer.getvalue(), ["/w/pkg/a.py", "/w/pkg/b.py"]) == {}
