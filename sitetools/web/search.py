"""The site's search index: one Pagefind index per edition, written after the editions are built.

Sphinx's search scores a page by its single best-matching word, drops a query with one unknown word,
stems API names out of shape and skips Chinese words of two characters. The search page
(``docs/_templates/search.html`` and ``docs/_static/site_search.js``) asks this index instead:
`Pagefind <https://pagefind.app>`_ finds each word of the query on its own, keeps names such as
``share_memory_`` or ``detach().clone()`` whole while matching their parts, and answers per section
(heading, anchor and excerpt); the Chinese edition's words are cut here, by jieba (:class:`ChineseWords`).

What Pagefind reads is each content page as published, with these marks added to its copy (the
published page itself is not changed):

- only the article is indexed (``data-pagefind-body``), without the download note, the verified-on
  stamp, the download footer and the folded drawing helpers (``data-pagefind-ignore``);
- the answer box weighs more than body text; tables, code (not its printed output) and the pages that
  summarise others less (``data-pagefind-weight``); headings weigh more by Pagefind's default, and
  carry their section's id;
- the readers' words of :data:`WORDS` (``docs/_shared/search_words.toml``: OOM, 显存泄漏, EMA ...) and of
  the terminology list (:mod:`sitetools.rules.terms`: each term's aliases and avoided variants) are added, with
  a high weight, to the section they name, so that a reader's word leads to the section that answers it
  even where the page uses another word. A word list entry naming a label that does not exist fails the
  build, naming the file and line.

The index lands in ``<edition>/pagefind/``: the script the search page imports, its WebAssembly and the
index in fragments that the browser loads only for the words it looks up; for a Chinese edition also
``vocabulary.json``, the words of its pages, at which the search page cuts a Chinese query
(:class:`ChineseWords` says why Pagefind's own segmentation is not used), and the terminology list's
groups of words for one term, each of which finds the others (:func:`synonyms`).
"""

from __future__ import annotations

import dataclasses
import json
import posixpath
import re
import subprocess
import sys
import tempfile
import tomllib
from html import escape
from pathlib import Path

from editions import edition
from sitetools import web

ROOT = Path(__file__).resolve().parents[2]
WORDS = ROOT / "docs" / "_shared" / "search_words.toml"
FOLDER = "pagefind"
#: What the search page loads of Pagefind's bundle; its own user interfaces are not used, nor published.
KEPT = re.compile(r"^(pagefind\.js|pagefind-worker\.js|pagefind-entry\.json|vocabulary\.json|wasm\..*"
                  r"|.*\.pf_meta|index/.*|fragment/.*|filter/.*)$")  # fmt: skip
#: Weights (Pagefind's body text weighs 1, an ``<h1>`` 7): the answer box, the readers' words, tables.
ANSWER_WEIGHT = 4
WORDS_WEIGHT = 6
#: Around the readers' words in the indexed copy: the search page leaves them out of a result's excerpt,
#: which shows the page's own text (``docs/_static/site_search.js``, ``READERS_WORDS``).
WORDS_OPEN, WORDS_CLOSE = "⟦", "⟧"
TABLE_WEIGHT = 0.5
#: A page's code (not its printed output, which holds the errors readers paste): the prose around it
#: says what it does in the words a reader types, while its names (``t``, ``out``, ``grad``) match many
#: questions that the code does not answer.
CODE_WEIGHT = 0.5
#: Pages that list or summarise the others (every fact, every claim, every example, the glossary): they
#: hold the words of many questions, while the answer is on the page they link to, so they weigh less;
#: so does the record of every check on other torch releases.
SUMMARY_PAGES = ("index.html", "examples/index.html", "facts.html", "ledger.html", "glossary.html", "about.html",
                 "releases.html")
SUMMARY_WEIGHT = 0.25
#: Elements of a page that are not its content, by a class they carry.
#: The drawing helpers (``tc-helpers``) are the same code on every page that draws; the table of checks
#: that changed between releases (``release-changes``) quotes the messages readers paste, whose answer is
#: on the page that explains them; the lists of pages and of tables changed since the records
#: (``release-stale-pages``, ``release-older-tables``) hold other pages' titles, which lead to those pages.
IGNORED_CLASSES = ("sphx-glr-download-link-note", "verified-stamp", "sphx-glr-footer", "sphx-glr-signature",
                   "tc-helpers", "release-changes", "release-stale-pages", "release-older-tables")
#: A section with no section inside it.
LEAF_SECTION = re.compile(r"<section\b[^>]*>(?:(?!<section\b|</section>).)*</section>", re.S)


class SearchIndexError(ValueError):
    """A word list entry that cannot be placed, or a page Pagefind could not index."""


@dataclasses.dataclass(frozen=True)
class Words:
    """Readers' words that lead to one labelled page or section."""

    label: str
    words: dict[str, tuple[str, ...]]  #: edition code -> the words typed in that edition's search
    where: str  #: ``docs/_shared/search_words.toml:LINE``, for messages


def read_words(path: Path = WORDS) -> list[Words]:
    """The reviewed list of readers' words: one ``[[words]]`` table per target label."""
    text = path.read_text(encoding="utf-8")
    starts = [number for number, line in enumerate(text.splitlines(), 1) if line.strip() == "[[words]]"]
    entries = tomllib.loads(text).get("words", [])
    found = []
    for line, entry in zip(starts, entries, strict=True):
        where = f"{path.relative_to(ROOT).as_posix()}:{line}"
        label = entry.get("label")
        words = {code: tuple(entry.get(code, ())) for code in entry if code != "label"}
        unknown = [code for code in words if not _is_edition(code)]
        if not label or unknown or not any(words.values()):
            raise SearchIndexError(f"{where}: an entry needs a label and words of known editions "
                                   f"(got label={label!r}, editions {sorted(words)})")  # fmt: skip
        found.append(Words(label, words, where))
    return found


def _is_edition(code: str) -> bool:
    try:
        edition(code)
    except LookupError:
        return False
    return True


def term_words(code: str) -> list[Words]:
    """The terminology list as readers' words: a Chinese edition's term, aliases and avoided variants
    lead to the term's page (the words Chinese readers type; the English edition has its own list)."""
    from sitetools.rules.terms import TERMS

    if not edition(code).cjk:
        return []
    return [Words(term.page, {code: (term.zh, *term.also, *term.avoid)}, f"sitetools/rules/terms.py ({term.zh})")
            for term in TERMS if term.page]  # fmt: skip


def synonyms() -> list[list[str]]:
    """Words the terminology list names as one term (原地操作, 原地修改; 叶子张量, 叶子节点, 叶节点): a query
    with one of them finds the pages that use another."""
    from sitetools.rules.terms import TERMS

    return [[term.zh, *term.also, *term.avoid] for term in TERMS if term.also or term.avoid]


def labels(folder: Path) -> dict[str, tuple[str, str]]:
    """``label -> (page, anchor)`` of an edition (a page's own name too, anchor ''), from the inventory Sphinx wrote."""
    from sphinx.util.inventory import InventoryFile

    if not (folder / "objects.inv").exists():
        return {}  # a build without Sphinx's inventory names no label: every entry is reported missing
    with (folder / "objects.inv").open("rb") as stream:
        inventory = InventoryFile.load(stream, "", posixpath.join)
    found = {}
    for kind in ("std:doc", "std:label"):  # a page's name (``matrix``) or a label (``questions-views``)
        for name, item in inventory.get(kind, {}).items():
            page, _, anchor = item.uri.partition("#")
            found[name] = (page, anchor)
    return found


def _mark(html: str, pattern: str, attribute: str) -> str:
    """Add ``attribute`` to every start tag matching ``pattern``."""
    return re.sub(pattern, lambda match: match.group(0)[:-1] + f" {attribute}>", html)


def prepared(html: str, words: list[tuple[str, tuple[str, ...]]], summary: bool = False) -> str:
    """The copy of a page that Pagefind reads: ``words`` is ``[(anchor, readers' words)]`` to add;
    a ``summary`` page weighs less (:data:`SUMMARY_PAGES`)."""
    weight = f' data-pagefind-weight="{SUMMARY_WEIGHT}"' if summary else ""
    html = _mark(html, r'<article role="main"[^>]*>', "data-pagefind-body" + weight)
    for name in IGNORED_CLASSES:
        tag = rf'<(?:div|p|details|table|ul)\b[^>]*class="[^"]*\b{name}\b[^"]*"[^>]*>'
        html = _mark(html, tag, "data-pagefind-ignore")
    html = LEAF_SECTION.sub(lambda match: _ignore_helpers(match.group(0)), html)
    html = _mark(html, r'<div class="answer admonition"[^>]*>', f'data-pagefind-weight="{ANSWER_WEIGHT}"')
    # Pagefind makes a result of each heading with an id; Sphinx puts the id on the <section> around it.
    html = re.sub(r'(<section\b[^>]*\bid="([^"]+)"[^>]*>(?:\s*<span id="[^"]*"></span>)*\s*)<h([1-6])>',
                  r'\1<h\3 id="\2">', html)
    html = _mark(html, r"<table\b[^>]*>", f'data-pagefind-weight="{TABLE_WEIGHT}"')
    html = _mark(html, r'<div class="highlight-[Pp]ython\b[^"]*"[^>]*>', f'data-pagefind-weight="{CODE_WEIGHT}"')
    for anchor, typed in words:
        start = rf'id="{re.escape(anchor)}"[^<]*>' if anchor else r"<article\b"
        heading = re.search(start + r"(?:.|\n)*?</h[1-6]>", html)
        if heading is None:
            raise SearchIndexError(f"no heading follows the anchor #{anchor}")
        text = WORDS_OPEN + " · ".join(escape(word, quote=False) for word in typed) + WORDS_CLOSE
        html = html[:heading.end()] + f'\n<p data-pagefind-weight="{WORDS_WEIGHT}">{text}</p>\n' + html[heading.end():]
    return html


def _ignore_helpers(section: str) -> str:
    """A section of helper functions on an example page (its code cells define functions, and it prints
    and draws nothing) is left out of the index: its prose (what ``same_storage`` compares, how the
    pictures are drawn) holds the words of many questions and answers none. (A doctest, ``pycon``, shows
    its output inside its own block: it is never a helper section.)"""
    python = 'class="highlight-Python' in section or 'class="highlight-python-helpers' in section
    defines = python and '<span class="k">def</span>' in section
    shows = "sphx-glr-script-out" in section or "<img" in section
    return section.replace("<section", "<section data-pagefind-ignore", 1) if defines and not shows else section


def placed_words(folder: Path, code: str, entries: list[Words], complete: bool = True,
                 ) -> dict[str, list[tuple[str, tuple[str, ...]]]]:  # fmt: skip
    """``page -> [(anchor, words)]`` for one edition; an entry naming an unknown label raises, unless the
    edition is not ``complete`` (a preview of a few pages, which leaves the others' labels out)."""
    known = labels(folder)
    placed: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
    missing = []
    for entry in entries:
        if entry.label not in known:
            if not complete:
                continue
            missing.append(f"{entry.where}: no page or section of the {code} edition has the label {entry.label!r}")
            continue
        page, anchor = known[entry.label]
        if typed := entry.words.get(code):
            placed.setdefault(page, []).append((anchor, typed))
    if missing:
        raise SearchIndexError("\n".join(missing))
    return placed


def _index(folder: Path, pages: dict[str, str], language: str | None) -> None:
    """Pagefind's command line on copies of ``pages`` in a scratch folder; it exits once every file of the
    index is written. (Its Python service answers "written" before its files are all on disk: some
    builds had an empty or cut pagefind-entry.json or fragment, and the search page threw.)"""
    with tempfile.TemporaryDirectory() as scratch:
        for page, html in pages.items():
            (Path(scratch) / page).parent.mkdir(parents=True, exist_ok=True)
            (Path(scratch) / page).write_text(html, encoding="utf-8")
        command = [sys.executable, "-m", "pagefind", "--site", scratch, "--output-path", str(folder / FOLDER),
                   "--keep-index-url", "--silent", *(["--force-language", language] if language else [])]  # fmt: skip
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0 or not (folder / FOLDER / "pagefind-entry.json").is_file():
            said = result.stderr.strip() or result.stdout.strip()
            raise SearchIndexError(f"Pagefind failed (exit {result.returncode}): {said}")


def index(folder: Path, pages: dict[str, str], chinese: ChineseWords | None = None) -> None:
    """Write the Pagefind index of ``pages`` (``{path relative to folder: the HTML to index}``) into
    ``folder/pagefind``, keeping only what the search page loads; with ``chinese``, the pages' Chinese
    is cut into its words first and their list written as ``vocabulary.json``."""
    pages = {page: html for page, html in pages.items() if "data-pagefind-body" in html}
    if not pages:
        return  # no article to search (a fault build's stand-in pages)
    language = None
    if chinese is not None:
        pages = {page: chinese.html(html) for page, html in pages.items()}
        language = "en"  # no segmentation by Pagefind, at index or at query time
    _index(folder, pages, language)
    if chinese is not None:
        same = synonyms()
        words = sorted(chinese.known | {word for group in same for word in group})
        vocabulary = json.dumps({"words": words, "same": same}, ensure_ascii=False)
        (folder / FOLDER / "vocabulary.json").write_text(vocabulary, encoding="utf-8")
    for path in sorted((folder / FOLDER).rglob("*"), reverse=True):
        relative = path.relative_to(folder / FOLDER).as_posix()
        if path.is_file() and not KEPT.match(relative):
            path.unlink()
        elif path.is_dir() and not any(path.iterdir()):
            path.rmdir()


HAN_RUN = re.compile(r"[\u3400-\u9fff]+")
#: Between the Chinese words of an indexed copy, and around each run of them (Pagefind joins the text of
#: two elements without a space, so a heading's last word would run into the next paragraph's first).
#: A plain space: Pagefind splits words at nothing else (a hair space or a zero-width space leaves the
#: run one word); the search page takes out the spaces between Chinese characters that it shows.
SEPARATOR = " "


def encoded(word: str) -> str:
    """A Chinese word as the index holds it: ``zh`` and its characters' code points (张量: ``zh24352x37327``).
    Pagefind 1.5.2, told the language is ``en``, still finds only a few of the pages that hold a Chinese
    word (张量: 4 of 43); spelled in ASCII digits, the same word is found on every page that holds it, and
    a word's first characters still find it (张 finds 张量). The search page spells a query's Chinese words
    the same way and turns the index's text back into Chinese before it shows it."""
    return "zh" + "x".join(str(ord(char)) for char in word)


class ChineseWords:
    """Cuts the Chinese text of an edition's pages into words with jieba (the terminology list as its
    dictionary), and keeps every word it cut: the vocabulary at which the search page cuts a query.

    Pagefind 1.5.2 segments Chinese with one segmenter when it indexes and the browser's (ICU) when it
    searches; the two disagree (报错 is one word in the index, 报 and 错 in the query), and a page whose
    only 错 is in 报错 is not found. So the index of a Chinese edition is built without Pagefind's
    segmentation (as language ``en``: Latin words are stemmed as in the English edition), from text that
    jieba cut here, and the search page cuts a query at the same words (``docs/_static/site_search.js``)."""

    def __init__(self, code: str) -> None:
        import jieba

        jieba.setLogLevel(60)
        self.tokenizer = jieba.Tokenizer()
        if edition(code).search_dict:
            self.tokenizer.load_userdict(str(ROOT / edition(code).search_dict))
        self.known: set[str] = set()

    def cut(self, run: str) -> str:
        words = [word for word in self.tokenizer.cut(run, HMM=False) if word]
        self.known.update(word for word in words if len(word) > 1)
        return SEPARATOR + SEPARATOR.join(map(encoded, words)) + SEPARATOR  # apart from what is around it

    def html(self, html: str) -> str:
        """The page with the Chinese runs of its text (not of its tags) cut into words."""
        parts = re.split(r"(<[^>]*>)", html)
        return "".join(part if part.startswith("<") else HAN_RUN.sub(lambda m: self.cut(m.group(0)), part)
                       for part in parts)  # fmt: skip


def write(site: Path, codes: list[str], complete: bool = True) -> dict[str, int]:
    """Index every edition of ``site``; return the bytes of each edition's index. A preview is not
    ``complete``: word list entries for pages it leaves out are skipped, not refused."""
    entries = read_words()
    sizes = {}
    for code in codes:
        folder = site / code
        words = placed_words(folder, code, entries + term_words(code), complete)
        pages = {}
        for page in web.edition_pages(site, code):
            html = (folder / page).read_text(encoding="utf-8")
            try:
                pages[page] = prepared(html, words.get(page, []), page in SUMMARY_PAGES)
            except SearchIndexError as error:
                raise SearchIndexError(f"{code}/{page}: {error}") from None
        index(folder, pages, ChineseWords(code) if edition(code).cjk else None)
        sizes[code] = sum(path.stat().st_size for path in (folder / FOLDER).rglob("*") if path.is_file())
    return sizes
