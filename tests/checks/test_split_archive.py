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


def test_joined_parts_extract_as_the_parts_in_turn(tmp_path):
    """join_archives: one put of the joined stream leaves the folder each part's put would have left, a later
    entry of the same name winning (a real extraction into a folder)."""
    from repo2env.checks.separate_verifier import join_archives

    whole = _folder_tar({"pkg": None, "pkg/a.py": b"A\n", "pkg/sub": None, "pkg/sub/c.py": b"C\n"})
    parts = split_archive(whole, ["/w/pkg/a.py", "/w/pkg/sub"])
    later = _folder_tar({"a.py": b"A2\n"})
    joined = join_archives([parts["/w/pkg/a.py"], parts["/w/pkg/sub"], later])
    with tarfile.open(fileobj=io.BytesIO(joined)) as tar:
        tar.extractall(tmp_path, filter="tar")
    assert (tmp_path / "a.py").read_bytes() == b"A2\n" and (tmp_path / "sub" / "c.py").read_bytes() == b"C\n"
    assert join_archives([later]) == later


def test_a_verdict_is_graded_once_even_when_asked_side_by_side():
    """Verdicts: callers of the same key wait for the first grading and share its bytes; a run that wrote no
    reward is graded again; another key is graded on its own."""
    import threading
    import time

    from repo2env.checks.separate_verifier import Verdicts

    verdicts, calls = Verdicts(size=2), []

    def grade(value):
        def run():
            calls.append(value)
            time.sleep(0.2)
            return value
        return run

    got = []
    threads = [threading.Thread(target=lambda: got.append(verdicts.get_or_grade(("v", "a"), grade(b"0\n"))))
               for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert got == [b"0\n"] * 3 and calls == [b"0\n"]
    assert verdicts.get_or_grade(("v", "b"), grade(None)) is None
    assert verdicts.get_or_grade(("v", "b"), grade(b"1\n")) == b"1\n" and calls == [b"0\n", None, b"1\n"]
    verdicts.get_or_grade(("v", "c"), grade(b"c"))  # size 2: the oldest, ("v", "a"), is let go
    assert verdicts.get_or_grade(("v", "a"), grade(b"again")) == b"again"


def test_a_hardlink_to_another_sources_file_becomes_the_file_itself():
    """A hardlink whose other name belongs to another artifact is stored as a regular file (as the engine
    archives a path alone): put back in the verifier it cannot link through another artifact's symlink."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for name, data in (("pkg/sub/f.json", b"secret\n"),):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        link = tarfile.TarInfo("pkg/z.py")
        link.type, link.linkname = tarfile.LNKTYPE, "pkg/sub/f.json"
        tar.addfile(link)
        inner = tarfile.TarInfo("pkg/sub/g.json")
        inner.type, inner.linkname = tarfile.LNKTYPE, "pkg/sub/f.json"
        tar.addfile(inner)
    parts = split_archive(buffer.getvalue(), ["/w/pkg/z.py", "/w/pkg/sub"])
    with tarfile.open(fileobj=io.BytesIO(parts["/w/pkg/z.py"])) as tar:
        [member] = tar.getmembers()
        assert member.isfile() and tar.extractfile(member).read() == b"secret\n"
    with tarfile.open(fileobj=io.BytesIO(parts["/w/pkg/sub"])) as tar:
        inner_link = tar.getmember("sub/g.json")
        assert inner_link.islnk() and inner_link.linkname == "sub/f.json"  # within its own source: kept
