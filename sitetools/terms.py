"""The one terminology list of the site: each Chinese term, its English twin, and the page that shows it.

Three things read this list, so they can never disagree:

- the glossary pages (``docs/<code>/glossary.md``), through the ``terms-table`` directive;
- the Chinese search: ``docs/_shared/zh_search_terms.txt``, jieba's user dictionary, is written from
  this list (``python -m sitetools.terms --update``), so that a reader who types a term, one of its
  other names or a variant we avoid finds the glossary; and every one of those words is an entry of
  the Chinese search index pointing at the term's page (``tensorcopy_sphinx.zh_search``), so that the
  page comes first even where its text uses another word (版本号 for 版本计数器, 内存泄漏);
- the wording rule: :func:`check_variants` reports a variant to avoid (原位 for 原地操作) on a Chinese
  page, outside quotation marks (a quoted article keeps its own words).

:data:`WORDING` holds the house words that are not terms of the glossary (最保险, 解决办法, notebook,
单元格, 共享, 本次构建, 框内 ...): the wording rule enforces them too, but the glossary and the search leave
them out. 内存 and 存储 are one rule that no list can hold, since the word depends on the meaning: 存储
for torch's storage object (``untyped_storage()``, ``S1`` in the pictures, ``same storage:``), 内存 for
memory in general (CONTRIBUTING.md, 'Typography', and the glossary say so).
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SEARCH_DICTIONARY = ROOT / "docs" / "_shared" / "zh_search_terms.txt"
UPDATE_COMMAND = "python -m sitetools.terms --update"


@dataclasses.dataclass(frozen=True)
class Term:
    zh: str  #: the word the Chinese pages use
    en: str  #: the English term (backticks mark code)
    page: str  #: the reference label of the page that shows it
    also: tuple[str, ...] = ()  #: other names readers type (aliases), which the pages may use too
    avoid: tuple[str, ...] = ()  #: variants the Chinese pages do not use outside quotations


TERMS: tuple[Term, ...] = (
    Term("张量", "tensor", "copying-alias"),
    Term("复制", "copy", "copying-clone", also=("拷贝",)),
    Term("克隆", "clone, `clone()`", "copying-clone"),
    Term("浅拷贝", "shallow copy, `copy.copy`", "questions-deepcopy", also=("浅复制",)),
    Term("深拷贝", "deep copy, `copy.deepcopy`", "questions-deepcopy", also=("深复制",)),
    Term("存储", "storage", "copying-alias"),
    Term("共享内存", "shared memory", "questions-shared-memory"),
    Term("视图", "view", "questions-views"),
    Term("原地操作", "in-place operation", "questions-version-counter", also=("原地修改",),
         avoid=("原位操作", "原位", "就地操作", "就地")),
    Term("重新绑定", "rebinding a name", "copying-rebinding"),
    Term("版本计数器", "version counter, `_version`", "questions-version-counter", also=("版本号",)),
    Term("计算图", "computation graph", "questions-graph-kept-alive"),
    Term("内存泄漏", "memory leak", "questions-graph-kept-alive", also=("显存泄漏",)),
    Term("显存", "GPU memory", "questions-best-weights"),
    Term("自动求导", "autograd", "data-vs-detach-detach", also=("autograd",)),
    Term("需要梯度", "`requires_grad=True`", "copying-clone", avoid=("需要求导",)),
    Term("梯度模式", "grad mode, `torch.is_grad_enabled()`", "copying-clone", avoid=("求导模式",)),
    Term("反向传播", "backward pass, `backward()`", "questions-non-leaf-grad"),
    Term("梯度", "gradient, `.grad`", "questions-non-leaf-grad"),
    Term("叶子张量", "leaf tensor", "questions-non-leaf-grad", also=("叶子节点", "叶节点")),
    Term("非叶子张量", "non-leaf tensor", "questions-non-leaf-grad"),
    Term("推理张量", "inference tensor", "questions-inference-mode"),
    Term("张量列表", "list of tensors, `[t] * n`", "questions-containers"),
    Term("优化器", "optimizer, `optimizer.state_dict()`", "questions-optimizer-state", also=("优化器状态",)),
    Term("目标网络", "target network", "questions-target-networks", also=("软更新",)),
    Term("共享权重", "tied weights", "questions-tied-weights", also=("权重共享", "绑定权重")),
    Term("梯度检查点", "activation checkpointing, `torch.utils.checkpoint`", "questions-activation-checkpointing"),
    Term("检查点", "checkpoint (a saved training state, `torch.save` / `torch.load`)", "questions-checkpoints"),
    Term("梯度累积", "gradient accumulation", "questions-stale-grad"),
    Term("多进程", "multiprocessing, `torch.multiprocessing`", "questions-processes", also=("子进程",)),
    Term("竞争条件", "race condition (processes updating one shared tensor)", "questions-shared-memory",
         also=("加锁",)),
    Term("混合精度", "mixed precision, `torch.autocast`", "questions-autocast", also=("自动混合精度",)),
    Term("滑动平均", "moving average of weights (EMA)", "questions-ema", also=("指数滑动平均",)),
)


#: House words: one word for each idea, enforced like the terms' variants (``zh`` is the word to write;
#: ``en`` says what it stands for; ``page`` is unused).
WORDING: tuple[Term, ...] = (
    Term("最保险", "the safest (copy)", "", avoid=("最稳妥", "稳妥")),
    Term("解决办法", "a fix", "", avoid=("修法", "修复办法")),
    Term("按求导公式算出的", "the analytic (gradient)", "", avoid=("微积分",)),
    Term("notebook", "a Jupyter notebook", "", avoid=("笔记本",)),
    Term("单元格", "a cell of a notebook or script", "", avoid=("代码单元", "上一格", "下一格", "最后一格")),
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
)


def search_words() -> list[str]:
    """Every word a Chinese reader may type for a term, in list order, each once."""
    words = [word for term in TERMS for word in (term.zh, *term.also, *term.avoid)]
    return list(dict.fromkeys(words))


def search_dictionary() -> str:
    """The text of jieba's user dictionary: one word a line, with a frequency high enough to keep
    it whole and a part-of-speech tag (jieba reads no comments, so the file cannot say where it
    comes from: this module's docstring does)."""
    return "".join(f"{word} 20 n\n" for word in search_words())


# --- The wording rule --------------------------------------------------------------------------

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
    """``(line, variant, term)`` for each variant to avoid outside quotation marks (a quotation may
    span lines); where variants overlap (原位操作, 原位) only the longest is reported, a variant
    inside the accepted word itself (代码单元 in 代码单元格) is not one, and a variant that holds the
    accepted word (来源张量 holds 源张量) is one."""
    bare = QUOTED.sub(lambda quote: "\n" * quote.group().count("\n"), text)
    found = []
    for number, line in enumerate(bare.splitlines(), start=1):
        for term in (*TERMS, *WORDING):
            accepted = sorted((term.zh, *term.also), key=len, reverse=True)
            variants = sorted(term.avoid, key=len, reverse=True)
            holding = [variant for variant in variants if any(word in variant for word in accepted)]
            rest = _take(line, holding, number, term.zh, found)
            for word in accepted:
                rest = rest.replace(word, "\0")
            _take(rest, [variant for variant in variants if variant not in holding], number, term.zh, found)
    return found


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
    :mod:`sitetools.page_rules`, before every build and preview)."""
    return [
        f"{page.relative_to(root).as_posix()}:{line}: {variant!r} outside a quotation; write {term!r} "
        f"(see CONTRIBUTING.md, 'Typography'; the list of terms is sitetools/terms.py)"
        for page in [*chinese_pages(root, code), *string_sources(root)]
        for line, variant, term in variants_in(page.read_text(encoding="utf-8"))
    ]


# --- The first mention rule ------------------------------------------------------------------

#: Terms a Chinese page writes in both languages the first time it names them: ``(zh, en)``. The first
#: mention on a page, in either language, reads 自动求导（autograd）; later ones may use either word.
FIRST_MENTIONS: tuple[tuple[str, str], ...] = (("自动求导", "autograd"),)


def _mentions(zh: str, en: str) -> re.Pattern[str]:
    """``zh``, or ``en`` as a word of prose (not part of a name such as ``torch.autograd.grad``)."""
    return re.compile(rf"{re.escape(zh)}|(?<![\w.`/]){re.escape(en)}(?![\w.`/(])")


#: A picture's ``:alt:`` option and the lines that continue it (indented further): a screen reader
#: reads it in place of the picture, and a sighted reader never sees it, so a mention there is not the
#: page's first mention.
_ALT_TEXT = re.compile(r"^([ \t]*):alt:.*(?:\n\1[ \t]+\S.*)*", re.MULTILINE)


def first_mention_problems(text: str) -> list[tuple[int, str]]:
    """``(line, message)`` for each term of :data:`FIRST_MENTIONS` whose first mention in ``text`` (a
    page's prose; alt text left out) is not written ``zh（en）``."""
    text = _ALT_TEXT.sub(lambda alt: "\n" * alt.group().count("\n"), text)
    found = []
    for zh, en in FIRST_MENTIONS:
        first = _mentions(zh, en).search(text)
        if first and not text.startswith(f"{zh}（{en}）", first.start()):
            line = text.count("\n", 0, first.start()) + 1
            context = text[first.start() : first.start() + 12].split("\n")[0]
            found.append((line, f"the first mention of {zh} or {en} on the page, {context!r}, "
                                f"is not written {zh}（{en}）"))
    return found


def _prose(page: Path) -> list[tuple[int, str]]:
    """``(first line, text)`` of what a reader reads on a page: a script's text cells (its code and
    comments inside code are left out), a header's or a narrative page's whole text."""
    if page.suffix == ".py":
        from sitetools.typography import text_cells

        return text_cells(page)
    return [(1, page.read_text(encoding="utf-8"))]


def check_first_mentions(root: Path = ROOT, code: str = "zh_CN") -> list[str]:
    """The first mention rule over the Chinese edition's pages (gallery scripts, part headers, narrative
    pages), as "file:line: ..." problems."""
    problems = []
    for page in chinese_pages(root, code):
        if page.suffix == ".po" or (page.suffix == ".py" and not page.name.startswith("plot_")):
            continue  # the theme's words; a stray script, which the layout rule refuses
        cells = _prose(page)
        text = "\n".join(cell for _, cell in cells)
        for line, message in first_mention_problems(text):
            start, before = cells[0][0], 0
            for first, cell in cells:  # the file line of the text's line ``line``
                if before + cell.count("\n") + 1 >= line:
                    start = first + line - before - 1
                    break
                before += cell.count("\n") + 1
            problems.append(f"{page.relative_to(root).as_posix()}:{start}: {message} "
                            f"(see CONTRIBUTING.md, 'Typography'; the list is FIRST_MENTIONS in sitetools/terms.py)")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--update", action="store_true", help=f"rewrite {SEARCH_DICTIONARY.relative_to(ROOT)}")
    args = parser.parse_args(argv)
    wanted = search_dictionary()
    current = SEARCH_DICTIONARY.read_text(encoding="utf-8") if SEARCH_DICTIONARY.exists() else ""
    if current == wanted:
        print(f"{SEARCH_DICTIONARY.relative_to(ROOT)} is up to date")
        return 0
    if args.update:
        SEARCH_DICTIONARY.write_text(wanted, encoding="utf-8")
        print(f"wrote {SEARCH_DICTIONARY.relative_to(ROOT)}")
        return 0
    print(f"{SEARCH_DICTIONARY.relative_to(ROOT)} differs from sitetools/terms.py; run `{UPDATE_COMMAND}`")
    return 1


if __name__ == "__main__":
    sys.exit(main())
