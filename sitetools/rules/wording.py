"""The wording rule: a variant the Chinese pages avoid (原位 for 原地操作, 拷贝 where the house word is 复制)
is refused on a Chinese page, and in the strings the Chinese pages render, outside quotation marks (a quoted
article keeps its own words). The words come from :data:`sitetools.rules.terms.TERMS` and
:data:`WORDING` below.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from sitetools.rules.terms import ROOT, TERMS, Term

#: House words: one word for each idea, enforced like the terms' variants (``zh`` is the word to write;
#: ``en`` says what it stands for; ``page`` is unused).
WORDING: tuple[Term, ...] = (
    Term("最保险", "the safest (copy)", "", avoid=("最稳妥", "稳妥")),
    Term("解决办法", "a fix", "", avoid=("修法", "修复办法")),
    Term("按求导公式算出的", "the analytic (gradient)", "", avoid=("微积分",)),
    Term("notebook", "a Jupyter notebook", "", avoid=("笔记本",)),
    Term("单元格", "a cell of a notebook or script", "",
         avoid=("代码单元", "上一格", "下一格", "最后一格", "本单元", "下一单元")),
    Term("共享", "to share (memory, a storage, a version counter)", "", avoid=("共用",)),
    Term("版本计数器", "the version counter (never 'the `_version` count')", "", also=("计数器",),
         avoid=("_version`` 计数", "_version` 计数")),
    Term("没有版本计数器", "has no version counter (an inference tensor)", "",
         avoid=("不记录版本计数器", "不维护版本计数器", "不记版本")),
    Term("本次构建", "this build", "", avoid=("本构建",)),
    Term("框内", "inside the box (an admonition)", "", avoid=("框里",)),
    Term("现象", "the symptom (the section a question page opens with)", "", avoid=("症状",)),
    Term("fused 优化器", "a fused optimizer (`fused=True`)", "",
         avoid=("fused=True`` 建的", "fused=True` 建的", "fused=True 建的")),
    Term("探测程序", "a probe (the code that measures a table's cells)", "", avoid=("探针",)),
    Term("前向传播", "the forward pass", "", avoid=("前向计算",)),
    Term("微批次", "a micro-batch (the first mention reads 微批次（micro-batch）)", "",
         also=("微批次（micro-batch）",), avoid=("micro-batch",)),
    Term("调用过 ``step()``", "an optimizer that has stepped (no English verb in Chinese prose)", "",
         avoid=("step 过",)),
    Term("抛出", "to raise (an error; for 'to cause', 导致)", "", avoid=("引发",)),
    Term("滑动统计量", "running statistics (``BatchNorm``'s ``running_mean``)", "", avoid=("running 统计量",)),
    Term("源张量", "the source tensor (of a copy, a view or a conversion)", "", avoid=("来源张量",)),
    Term("报错信息", "the message of an error torch raises", "", avoid=("报错消息", "错误消息", "错误信息")),
    Term("检查点", "a checkpoint (a saved `state_dict`)", "", avoid=("存档",)),
    Term("内核", "a kernel (the code torch runs for an operation)", "", avoid=("算子",)),
    Term("手算", "worked out by hand (a gradient)", "", avoid=("手推",)),
)

#: Text between these marks is a quotation; a variant inside one is the quoted author's word.
QUOTED = re.compile(r"“[^”]*”|「[^」]*」|『[^』]*』")


def chinese_pages(root: Path = ROOT, code: str = "zh_CN") -> list[Path]:
    """The sources of the Chinese edition: example scripts, part headers, narrative pages and the
    translations of the theme's and sphinx-gallery's words (``docs/_locale``)."""
    gallery, locale = root / "gallery" / code, root / "docs" / "_locale" / code
    return sorted([*gallery.rglob("*.py"), *gallery.rglob("*.rst"), *(root / "docs" / code).glob("*.md"),
                   *locale.rglob("*.po")])


def string_sources(root: Path = ROOT) -> list[Path]:
    """The Python modules whose strings appear on the Chinese pages: the fact engine's texts (ledger,
    matrix guide, decisions, facts) and the Sphinx extensions' words."""
    return sorted([*(root / "tensorfacts").rglob("*.py"), *(root / "docs" / "_ext").rglob("*.py")])


def variants_in(text: str) -> list[tuple[int, str, str]]:
    """:func:`_variants_in`, as a list of its own."""
    return list(_variants_in(text))


@functools.lru_cache(maxsize=1024)
def _variants_in(text: str) -> tuple[tuple[int, str, str], ...]:
    """``(line, variant, term)`` for each variant to avoid outside quotation marks (a quotation may
    span lines); where variants overlap (原位操作, 原位) only the longest is reported, a variant
    inside the accepted word itself (代码单元 in 代码单元格) is not one, and a variant that holds the
    accepted word (来源张量 holds 源张量) is one."""
    bare = QUOTED.sub(lambda quote: "\n" * quote.group().count("\n"), text)
    # only the terms with a variant somewhere in the text can have one on a line (most texts hold none)
    plans = [plan for plan in _plans() if any(variant in bare for variant in (*plan[2], *plan[3]))]
    found = []
    for number, line in enumerate(bare.splitlines() if plans else (), start=1):
        for term, accepted, holding, others in plans:
            if not any(variant in line for variant in (*holding, *others)):
                continue  # the common case; blanking words out below can only remove variants
            rest = _take(line, holding, number, term, found)
            for word in accepted:
                rest = rest.replace(word, "\0")
            _take(rest, others, number, term, found)
    return tuple(found)


@functools.cache
def _plans() -> tuple[tuple[str, tuple[str, ...], tuple[str, ...], tuple[str, ...]], ...]:
    """For each term: the accepted words and the variants that hold one (longest first), and the other
    variants, longest first."""
    plans = []
    for term in (*TERMS, *WORDING):
        accepted = tuple(sorted((term.zh, *term.also), key=len, reverse=True))
        variants = sorted(term.avoid, key=len, reverse=True)
        holding = tuple(variant for variant in variants if any(word in variant for word in accepted))
        plans.append((term.zh, accepted, holding, tuple(v for v in variants if v not in holding)))
    return tuple(plans)


def _take(line: str, variants: list[str], number: int, term: str, found: list) -> str:
    """Add each of ``variants`` (longest first) that ``line`` holds to ``found``; return the line with
    them blanked out, so that a shorter variant inside a longer one is not reported again."""
    for variant in variants:
        if variant in line:
            found.append((number, variant, term))
            line = line.replace(variant, "\0")
    return line


def check_variants(root: Path = ROOT, code: str = "zh_CN") -> list[str]:
    """Every variant to avoid on a Chinese page or in the strings the Chinese pages render
    (:func:`string_sources`), outside quotations, as "file:line: ..." problems (run by the page rules,
    :mod:`sitetools.rules.all_rules`, before every build and preview)."""
    return [
        f"{page.relative_to(root).as_posix()}:{line}: {variant!r} outside a quotation; write {term!r} "
        f"(see CONTRIBUTING.md, 'Typography'; the words are in sitetools/rules/terms.py and wording.py)"
        for page in [*chinese_pages(root, code), *string_sources(root)]
        for line, variant, term in variants_in(page.read_text(encoding="utf-8"))
    ]
