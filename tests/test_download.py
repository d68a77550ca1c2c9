"""`data download`: copying from a local root, fetching (network replaced), unzipping NSpM, errors."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from nmt_sparql.data import download as dl
from nmt_sparql.data.readers import read_dataset


def make_root(root: Path, name: str) -> list[str]:
    """A local root holding every file of dataset `name`; returns the relative paths."""
    rels = []
    for source in dl.DATASETS[name]:
        if source.optional:
            continue
        for rel in [f"{source.path}/{m}" for m in source.members] or [source.path]:
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(f"content of {rel}\n", encoding="utf-8")
            rels.append(rel)
    return rels


@pytest.mark.parametrize("name", sorted(dl.DATASETS))
def test_download_from_local_root_copies_every_file(tmp_path, name):
    rels = make_root(tmp_path / "mirror", name)
    written = dl.download(name, tmp_path / "out", root=tmp_path / "mirror")
    assert written == [tmp_path / "out" / rel for rel in rels]
    assert all(p.read_text(encoding="utf-8") == f"content of {rel}\n" for p, rel in zip(written, rels))


def test_download_from_local_root_names_the_missing_file(tmp_path):
    make_root(tmp_path / "mirror", "lcquad1")
    (tmp_path / "mirror" / "lcquad1" / "test-data.json").unlink()
    with pytest.raises(FileNotFoundError, match="lcquad1/test-data.json is missing"):
        dl.download("lcquad1", tmp_path / "out", root=tmp_path / "mirror")


def test_download_copy_of_real_files_reads_back(tmp_path):
    shared = Path(__file__).resolve().parents[2] / "shared" / "datasets"
    if not (shared / "lcquad1").is_dir():
        pytest.skip("shared datasets not present")
    written = dl.download("lcquad1", tmp_path, root=shared)
    assert len(written) == 5
    assert len(read_dataset("lcquad1", tmp_path)) == 5000


def zip_bytes(files: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return buffer.getvalue()


def test_download_fetches_urls_and_unzips_nspm(tmp_path, monkeypatch):
    pair = {
        "en": "how long is alien\n",
        "sparql": "select var_x where brack_open dbr_Alien dbo_runtime var_x brack_close\n",
    }
    members = {
        f"movies_300/{s}.{ext}": pair[ext] for s in ("train", "dev", "test") for ext in ("en", "sparql")
    }
    members["__MACOSX/movies_300/._train.en"] = "resource fork"
    archives = {
        dl.DATASETS["nspm"][0].url: zip_bytes(members),
        dl.DATASETS["nspm"][1].url: zip_bytes(
            {f"data/{k.split('/')[-1]}": v for k, v in members.items() if "MACOSX" not in k}
        ),
    }
    fetched: list[str] = []

    def fake_fetch(url: str, timeout: float = dl.TIMEOUT_S) -> bytes:
        fetched.append(url)
        return archives[url]

    monkeypatch.setattr(dl, "fetch", fake_fetch)
    written = dl.download("nspm", tmp_path)
    assert fetched == [s.url for s in dl.DATASETS["nspm"]]
    assert len(written) == 12
    assert (tmp_path / "nspm" / "movies_300" / "train.en").read_text(encoding="utf-8") == pair["en"]
    assert [e.split for e in read_dataset("nspm-movies", tmp_path)] == ["train", "validation", "test"]
    assert len(read_dataset("nspm-compositions", tmp_path)) == 3


def test_download_fetch_writes_plain_files_and_skips_local_only_ones(tmp_path, monkeypatch):
    monkeypatch.setattr(dl, "fetch", lambda url, timeout=dl.TIMEOUT_S: f"body of {url}".encode())
    written = dl.download("lcquad2-sample", tmp_path)
    assert written == [tmp_path / "lcquad2-sample" / "test_KG_4211.json"]
    assert written[0].read_text() == f"body of {dl.DATASETS['lcquad2-sample'][0].url}"


def test_download_zip_without_a_member_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setattr(dl, "fetch", lambda url, timeout=dl.TIMEOUT_S: zip_bytes({"train.en": "q\n"}))
    with pytest.raises(dl.DownloadError, match="movies_300.zip lacks train.sparql"):
        dl.download("nspm", tmp_path)
    monkeypatch.setattr(dl, "fetch", lambda url, timeout=dl.TIMEOUT_S: b"<html>not found</html>")
    with pytest.raises(dl.DownloadError, match="not a zip archive"):
        dl.download("nspm", tmp_path)


def test_fetch_failure_names_the_url(monkeypatch):
    def refuse(request, timeout):
        raise dl.urllib.error.URLError("no network")

    monkeypatch.setattr(dl.urllib.request, "urlopen", refuse)
    with pytest.raises(dl.DownloadError, match="cannot download https://example.org/x.json: no network"):
        dl.fetch("https://example.org/x.json")


def test_download_stops_at_the_first_failed_fetch_keeping_finished_files(tmp_path, monkeypatch):
    calls = iter([b"first file", dl.DownloadError("cannot download second")])

    def flaky(url, timeout=dl.TIMEOUT_S):
        item = next(calls)
        if isinstance(item, Exception):
            raise item
        return item

    monkeypatch.setattr(dl, "fetch", flaky)
    with pytest.raises(dl.DownloadError):
        dl.download("lcquad2", tmp_path)
    assert sorted(p.name for p in (tmp_path / "lcquad2").iterdir()) == ["train.json"]


def test_unknown_dataset_is_named(tmp_path):
    with pytest.raises(KeyError, match="unknown dataset 'nope'"):
        dl.download("nope", tmp_path)


def test_registry_points_at_upstream_raw_files():
    for name, sources in dl.DATASETS.items():
        for source in sources:
            assert source.optional or source.url.startswith("https://raw.githubusercontent.com/"), (
                name,
                source,
            )
            assert not source.path.startswith("/") and ".." not in source.path
