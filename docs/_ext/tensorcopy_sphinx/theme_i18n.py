"""Translate the words the Furo theme writes in English whatever the page's language.

Furo passes some of its words through the message catalog ("Back to top", "On this page", "Skip to
content"), but writes others as fixed English: the aria-labels of its toggles, the ``<title>`` of its
icons, and "Toggle navigation of …" in the sidebar. This extension gives the page template
(``docs/_templates/page.html``) a list of ``(English, translated)`` replacements for the fixed ones,
and translates the sidebar's labels itself. Every word comes from the message catalogs (Sphinx's and
``docs/_locale/<code>/LC_MESSAGES/sphinx.po``); an edition written in another language than the
theme's fails the build, naming the catalog, if one of the words below has no translation there.
"""

import re
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.errors import ExtensionError

from editions import CODES, edition

#: Words of the page chrome, each as it appears in Furo's HTML (``{}`` marks the word itself).
FIXED = (
    ('aria-label="{}"', "Toggle site navigation sidebar"),
    ('aria-label="{}"', "Toggle table of contents sidebar"),
    ('aria-label="{}"', "Toggle Light / Dark / Auto color theme"),
    ("<title>{}</title>", "Contents"),
    ("<title>{}</title>", "Menu"),
    ("<title>{}</title>", "Expand"),
    ("<title>{}</title>", "Light mode"),
    ("<title>{}</title>", "Dark mode"),
    ("<title>{}</title>", "Auto light/dark, in light mode"),
    ("<title>{}</title>", "Auto light/dark, in dark mode"),
)
#: Words Furo already sends through the catalog, and the site's own template words.
CATALOGUED = (
    "Skip to content", "Back to top", "On this page", "Next", "Previous", "Home", "Search",
    "Built with {sphinx} and the {furo} theme.", "Edit this page", "Report a problem on this page",
    "Page not found", "This address is not a page of this site. The pages are listed in the menu.",
    "Toggle navigation of {title}",
    # Furo's search page, without JavaScript: Sphinx's catalog has this sentence only as the basic
    # theme's template wraps it, over two lines.
    "Please activate JavaScript to enable the search functionality.",
)  # fmt: skip
_NAVIGATION = re.compile(r'aria-label="Toggle navigation of ([^"]*)"')


def words() -> list[str]:
    return [word for _, word in FIXED] + list(CATALOGUED)


def untranslated(app: Sphinx) -> list[str]:
    """The chrome words the catalogs leave in English for this edition."""
    gettext = app.translator.gettext
    return [word for word in words() if gettext(word) == word]


def translated(app: Sphinx, text: str) -> str:
    """``text`` (an English message id) from the edition's catalog. Any edition but the first of the table
    of editions (whose language the message ids are written in) fails the build when it has none."""
    done = app.translator.gettext(text)
    if done == text and app.config.language != edition(CODES[0]).sphinx_language:
        raise ExtensionError(
            f"the {app.config.language} edition has no translation for {text!r}; "
            f"add it to docs/_locale/{app.config.language}/LC_MESSAGES/sphinx.po"
        )
    return done


def _check(app: Sphinx) -> None:
    missing = untranslated(app)
    if missing and len(missing) != len(words()):  # all missing: the edition is in the theme's language
        raise ExtensionError(
            f"the {app.config.language} edition has no translation for {', '.join(map(repr, missing))}; "
            f"add them to docs/_locale/{app.config.language}/LC_MESSAGES/sphinx.po"
        )


def _page_context(app: Sphinx, pagename: str, templatename, context: dict, doctree) -> None:
    gettext = app.translator.gettext
    context["chrome_replacements"] = [
        (form.format(word), form.format(gettext(word))) for form, word in FIXED if gettext(word) != word
    ]
    tree = context.get("furo_navigation_tree")
    if tree:
        label = gettext("Toggle navigation of {title}")
        context["furo_navigation_tree"] = _NAVIGATION.sub(
            lambda match: f'aria-label="{label.format(title=match.group(1))}"', tree
        )


#: sphinx-copybutton's own Chinese for "Copied!" ends with an ASCII mark ('复制成功!'); the published script
#: says 已复制 instead. Its other Chinese words (复制, 复制到剪贴板, 复制失败) stay.
COPYBUTTON_WORDS = (("'copy_success': '复制成功!'", "'copy_success': '已复制'"),)


def fix_copybutton(script: str) -> str:
    """sphinx-copybutton's ``copybutton.js`` with its Chinese words as the site writes them."""
    for old, new in COPYBUTTON_WORDS:
        script = script.replace(old, new)
    return script


def _copybutton(app: Sphinx, exception: Exception | None) -> None:
    script = Path(app.outdir) / "_static" / "copybutton.js"
    if exception is None and script.is_file():
        script.write_text(fix_copybutton(script.read_text(encoding="utf-8")), encoding="utf-8")


def setup(app: Sphinx) -> dict:
    app.connect("builder-inited", _check)
    app.connect("build-finished", _copybutton)
    app.connect("html-page-context", _page_context, priority=900)  # after Furo builds the navigation
    return {"parallel_read_safe": True, "parallel_write_safe": True}
