"""The words of the releases page's tables and of the notes under them (:mod:`tensorcopy_sphinx.release_table`),
by edition code: the columns, the counts of each cell, the sentences that name what changed since the records, and
the labels of the changes table. A sentence about a list of items is a pair (one item, more items) where the
language needs one.
"""

WORDS = {
    "en": {
        "edition": "en",
        "none": "No release has been recorded yet.",
        "head": ("torch", "Python", "NumPy", "Date", "Commit", "Pages run to the end", "Checks", "Facts", "Claims",
                 "Table cells"),
        "counts": "{holds} hold, {differs} differ, {not available} not available, {errored} errored",
        "not run": ", {count} not run (their page stopped before them)",
        "no GPU": ", {count} in GPU boxes not run (no GPU)",
        "older": "; {count} ran with older code (see below)",
        "changes": ("Check", "Changed between", "What the oldest release where it does not hold gave"),
        "no changes": "Every check held on every recorded release.",
        # (one item, more items): the sentence says how many items its list holds
        "stale all": ("The page below, whose code changed after every record was taken, is checked on torch "
                      "{torch} only:",
                      "The {count} pages below, whose code changed after every record was taken, are checked on "
                      "torch {torch} only:"),
        "stale some": ("The page below, whose code changed after the records of torch {releases} were taken, "
                       "has not been checked on those releases, only on torch {torch}:",
                       "The {count} pages below, whose code changed after the records of torch {releases} were "
                       "taken, have not been checked on those releases, only on torch {torch}:"),
        "new facts": ("The fact below, added or changed after the records of torch {releases} were taken, has not "
                      "run as it now reads on those releases, only on torch {torch}:",
                      "The {count} facts below, added or changed after the records of torch {releases} were taken, "
                      "have not run as they now read on those releases, only on torch {torch}:"),
        "uncoded facts": ("The record of torch {releases} was taken before records named each fact's code: any fact "
                          "may have changed since, so none of its facts' results is counted or shown, and every "
                          "fact has run as it now reads on torch {torch} only.",
                          "The records of torch {releases} were taken before records named each fact's code: any "
                          "fact may have changed since, so none of their facts' results is counted or shown, and "
                          "every fact has run as it now reads on torch {torch} only."),
        "older claims": ("The check of the claim below was added or changed after the records of torch {releases} "
                         "were taken: those records' results for it come from the older check; as it now reads, it "
                         "has run on torch {torch} only:",
                         "The checks of the {count} claims below were added or changed after the records of torch "
                         "{releases} were taken: those records' results for them come from the older checks; as they "
                         "now read, they have run on torch {torch} only:"),
        "older tables": ("The probe of the table below changed after the records of torch {releases} were taken: "
                         "those records' results for its cells come from the older probe; as it now reads, it has "
                         "run on torch {torch} only:",
                         "The probes of the {count} tables below changed after the records of torch {releases} were "
                         "taken: those records' results for their cells come from the older probes; as they now "
                         "read, they have run on torch {torch} only:"),
        "not counted": "not counted (see below)",
        "label": "{kind}: {what}",
        "page check": "{page}: {check}",
        "built": "{torch} (this build)",
        "status": {"holds": "holds", "differs": "differs", "not available": "not available",
                   "errored": "errored", "not run": "not run", None: "—"},
        "kinds": {"page": "page", "fact": "fact", "claim": "ledger", "table matrix": "matrix",
                  "table views": "views", "table saved": "saved"},
        # the matrix page's sections, "Source: ..." (tests/test_release_records.py compares them)
        "sources": {"leaf": "a leaf tensor", "non-leaf": "a non-leaf tensor", "parameter": "an nn.Parameter",
                    "view": "a view of a leaf", "plain": "a tensor that does not require grad",
                    "inference": "an inference tensor"},
        "still": "still differs",
        "after build": "changed in {first} (after this build's torch)",
        "not run then": "not run on {last} (its page stopped before it); holds on {changed}",
        "still not run": "still not run",
        "stopped cell": ("its page stopped before it, at ", ", raising "),
        "stops": ("The pages below stopped before their end on the releases named, at the line and with the error "
                  "shown: there, their checks after that point did not run, a check whose own code raised before "
                  "its assert included:"),
        "stop where": "{page} (torch {releases}): ",
        "stop line": "stopped at ",
        "stop error": ", raising ",
        "stop crashed": "its process ended: ",
        "range": "{oldest} to {newest}",
        "pages as now": "{count} of the {total} example pages",
        "between": ", ",
    },
    "zh_CN": {
        "edition": "zh_CN",
        "none": "还没有记录任何版本。",
        "head": ("torch", "Python", "NumPy", "日期", "提交", "运行到结尾的页面", "检查", "事实", "说法", "表格单元格"),
        "counts": "{holds} 项成立，{differs} 项不同，{not available} 项不可用，{errored} 项出错",
        "not run": "，{count} 项未运行（页面在它们之前就停了）",
        "no GPU": "，GPU 框内的 {count} 项未运行（没有 GPU）",
        "older": "；其中 {count} 项运行的是旧代码（见下文）",
        "changes": ("检查", "变化发生在", "检查不成立的最旧版本给出的结果"),
        "no changes": "每项检查在记录的每个版本上都成立。",
        "stale all": "以下 {count} 页的代码在所有记录之后改过，只在 torch {torch} 上运行过：",
        "stale some": "以下 {count} 页的代码在 torch {releases} 的记录之后改过，在这几个版本上没有运行过，"
                      "在 torch {torch} 上运行过：",
        "new facts": "以下 {count} 条事实在 torch {releases} 的记录之后加入或改过，按现在的写法在这几个版本上"
                     "没有运行过，只在 torch {torch} 上运行过：",
        "uncoded facts": "torch {releases} 的记录做于记录写明每条事实的代码之前：任何一条事实都可能在那之后改过，"
                         "所以这些记录里事实的结果一律不计入、不列出，每条事实按现在的写法只在 torch {torch} "
                         "上运行过。",
        "older claims": "以下 {count} 条说法的检查在 torch {releases} 的记录之后加入或改过：那些记录里的结果来自"
                        "旧的检查代码；按现在的写法，只在 torch {torch} 上运行过：",
        "older tables": "以下 {count} 个表格的探测代码在 torch {releases} 的记录之后改过：那些记录里其单元格的结果"
                        "来自旧的探测代码；按现在的写法，只在 torch {torch} 上运行过：",
        "not counted": "不计入（见下文）",
        "label": "{kind}：{what}",
        "page check": "{page}：{check}",
        "built": "{torch}（本次构建）",
        "status": {"holds": "成立", "differs": "不同", "not available": "不可用", "errored": "出错",
                   "not run": "未运行", None: "—"},
        "kinds": {"page": "页面", "fact": "事实", "claim": "说法核对表", "table matrix": "行为对照表",
                  "table views": "视图操作", "table saved": "保存的张量"},
        "sources": {"leaf": "叶子张量", "non-leaf": "非叶子张量", "parameter": "nn.Parameter",
                    "view": "叶子张量的视图", "plain": "不需要梯度的张量", "inference": "推理张量"},
        "still": "仍然不同",
        "after build": "自 {first} 起改变（晚于本次构建所用的 torch）",
        "not run then": "在 {last} 上未运行（页面停在它之前），在 {changed} 上成立",
        "still not run": "仍未运行",
        "stopped cell": ("页面在它之前停在 ", "，报错 "),
        "stops": "下面这些页面在所列版本上没有运行到结尾，停在给出的那一行，报出给出的错误：在那些版本上，这一处之后"
                 "的检查都没有运行，包括自己的代码在断言之前就报错的检查：",
        "stop where": "{page}（torch {releases}）：",
        "stop line": "停在 ",
        "stop error": "，报错 ",
        "stop crashed": "进程提前结束：",
        "range": "{oldest} 至 {newest}",
        "pages as now": "{total} 个示例页面中的 {count} 个",
        "between": "、",
    },
}
