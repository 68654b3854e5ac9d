"""The title of the box that sets a source article against torch, checked before the build.

Where a source article is wrong or out of date, a page says so once, below the output that proves it,
in an admonition with ``:class: warning`` titled with the article and the running torch
(``|torch_version|``). Its title is read on its own (in the page's table of contents, a notebook's
blockquote), apart from the prose that names the article, so it is the one title :data:`TITLES` gives the
page's edition: in Chinese 原博文 (the blog post), never 原文, which on a translated site reads as the
English edition. A warning box with another title, or a box that names the torch version without the
warning class, is refused.
"""

from __future__ import annotations

import re
from pathlib import Path

from editions import pick
from sitetools.rules.sources import blocks, gallery_scripts, guide

#: The titles an article box may have in each edition: one each, the same whether the article is out of date or
#: wrong, and whether or not its error depends on torch (an indentation error, an index out of range).
TITLES = {
    "en": ("The article vs. torch |torch_version|",),
    "zh_CN": ("原博文与 torch |torch_version| 对照",),
}
SECTION = guide("Page structure")

_ADMONITION = re.compile(r"^\.\. admonition::[ \t]*(?P<title>.*)\n(?P<options>(?:[ \t]+:[\w-]+:.*\n)*)", re.M)
_CLASS = re.compile(r":class:(?P<classes>.*)")


def check_errata_boxes(lang: str, root: Path) -> list[str]:
    """Every admonition of ``lang``'s example pages with ``:class: warning`` or ``|torch_version|`` in its
    title is an article box titled as :data:`TITLES` says, each problem naming the file and the title."""
    titles = pick(TITLES, lang, "the article box's title")
    problems = []
    for script in gallery_scripts(lang, root / "gallery"):
        where = script.relative_to(root).as_posix()
        for kind, content in blocks(script):
            if kind != "text":
                continue
            for box in _ADMONITION.finditer(content + "\n"):
                title = box.group("title").strip()
                found = _CLASS.search(box.group("options"))
                warning = found is not None and "warning" in found.group("classes").split()
                if not warning and "|torch_version|" not in title:
                    continue
                if title not in titles:
                    problems.append(f"{where}: the article box {title!r} must be titled "
                                    f"{' or '.join(map(repr, titles))} {SECTION}")
                elif not warning:
                    problems.append(f"{where}: the article box {title!r} needs `:class: warning` {SECTION}")
    return problems
