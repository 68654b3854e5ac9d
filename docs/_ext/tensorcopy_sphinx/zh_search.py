"""Working Chinese search with Sphinx 9.0, for the editions marked ``cjk`` in ``editions``.

Three faults of the stock setup are handled here:

* Sphinx 9.0 writes ``window.Stemmer = ChineseStemmer;`` into ``language_data.js`` but defines no
  ``ChineseStemmer``; in a browser the search page then never finishes. The Chinese search language
  below ships the English stemmer (what Sphinx uses for Latin words in a Chinese index) under its
  real name.
* The browser does not segment a Chinese query, so an unspaced compound a reader types (计算图,
  自动求导) matches nothing in an index that jieba segmented. The query splitter below cuts each run
  of Han characters into the longest words the index itself holds (forward maximum matching).
* Without jieba Sphinx builds silently with no Chinese words in the index. Here the build fails
  instead, before reading (jieba missing) and after writing (index without Chinese words).

And one addition: a reader types their own word (“版本号”, “深复制”, “内存泄漏”), which the page that answers
them may never use. Every word of the terminology list (``sitetools.rules.terms``: each term, its aliases
and the variants the pages avoid) becomes an entry of the index pointing at the term's page, the way
an ``index`` directive's entry would; Sphinx's search ranks such an entry above words found in the
text, so that page comes first.
"""

import json
import logging
import re
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.search import _MINIFIED_JS_PATH
from sphinx.search.zh import SearchChinese
from sphinx.util import logging as sphinx_logging

from editions import edition
from sitetools.for_sphinx import TERMS

SPLIT_QUERY_JS = r"""
/* Chinese query splitter (tensorcopy_sphinx.zh_search): Latin words as usual; each run of Han characters
   is cut into the longest words the search index holds, because the browser cannot run jieba. */
var splitQuery = (query) => {
  const index = (typeof Search !== "undefined" && Search._index) || {};
  const has = (table, word) => Boolean(table) && Object.prototype.hasOwnProperty.call(table, word);
  const known = (word) => has(index.terms, word) || has(index.titleterms, word);
  const longest = 8;
  const words = [];
  const parts = query
    .split(/[^\p{Letter}\p{Number}_\p{Emoji_Presentation}]+/gu)
    .filter((part) => part);
  for (const part of parts) {
    for (const run of part.match(/\p{Script=Han}+|[^\p{Script=Han}]+/gu)) {
      if (!/\p{Script=Han}/u.test(run) || known(run)) {
        words.push(run);
        continue;
      }
      let start = 0;
      while (start < run.length) {
        let end = Math.min(run.length, start + longest);
        while (end > start + 1 && !known(run.slice(start, end))) end -= 1;
        const word = run.slice(start, end);
        // A single character the index does not hold would veto every result: drop it.
        if (end > start + 1 || known(word)) words.push(word);
        start = end;
      }
    }
  }
  return words;
};
"""

LOGGER = sphinx_logging.getLogger(__name__)

HAN = re.compile(r"[\u3400-\u9fff]")


class SearchChineseFixed(SearchChinese):
    """Sphinx's Chinese search with a stemmer that exists and a query splitter that segments."""

    js_stemmer_rawcode = ""  # ship the code inline (below) instead of the broken rawcode path
    js_splitter_code = SPLIT_QUERY_JS

    def __init__(self, options: dict[str, str]) -> None:
        super().__init__(options)
        self.js_stemmer_code = "\n".join(
            (
                (_MINIFIED_JS_PATH / "base-stemmer.js").read_text(encoding="utf-8"),
                (_MINIFIED_JS_PATH / "english-stemmer.js").read_text(encoding="utf-8"),
                "window.Stemmer = EnglishStemmer;",
            )
        )


def _require_jieba(app: Sphinx) -> None:
    if not edition(app.config.language).cjk:
        return
    try:
        import jieba
    except ImportError as error:
        raise ExtensionError(
            f"jieba is not importable, so Sphinx would build the {app.config.language} search index with no Chinese "
            "words in it. Install the pinned 'docs' dependency group (see pyproject.toml)."
        ) from error
    jieba.setLogLevel(logging.WARNING)


def term_entries(index: dict, labels: dict[str, tuple[str, str, str]]) -> dict[str, list[list]]:
    """The search index's ``indexentries`` with one main entry per word of the terminology list,
    pointing at the page of its term (``labels``: Sphinx's ``std`` labels, label -> (docname, ...)).

    A term whose page this build lacks is a ``ref.ref`` warning, which fails a full build (``-W``) and
    which a preview, built without most pages, lets pass (its ``suppress_warnings``)."""
    entries = dict(index["indexentries"])
    for term in TERMS:
        if term.page not in labels:
            LOGGER.warning(f"sitetools/rules/terms.py: the term {term.zh!r} names the page {term.page!r}, "
                           "which no page of this build defines", type="ref", subtype="ref")
            continue
        page = index["docnames"].index(labels[term.page][0])
        for word in (term.zh, *term.also, *term.avoid):
            entries[word] = [*entries.get(word, []), [page, "", True]]
    return entries


def _finish_index(app: Sphinx, exception: Exception | None) -> None:
    if exception or app.builder.format != "html" or not edition(app.config.language).cjk:
        return
    path = Path(app.outdir, "searchindex.js")
    text = path.read_text(encoding="utf-8")
    start, end = text.index("(") + 1, text.rindex(")")
    index = json.loads(text[start:end])
    if not any(HAN.search(term) for term in index["terms"]):
        raise ExtensionError(f"{app.outdir}/searchindex.js holds no Chinese words")
    index["indexentries"] = term_entries(index, app.env.domaindata["std"]["labels"])
    written = json.dumps(index, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    path.write_text(text[:start] + written + text[end:], encoding="utf-8")


def setup(app: Sphinx) -> dict:
    app.add_search_language(SearchChineseFixed)
    app.connect("builder-inited", _require_jieba)
    app.connect("build-finished", _finish_index)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
