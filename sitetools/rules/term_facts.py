"""Which named facts back each definition of the glossary (``sitetools/terms.py``, ``TERMS``), and which sections
of the behaviour matrix it links under a definition.

Kept apart from the terminology list, which the search and the wording rule read too: only the glossary
(``tensorcopy_sphinx.glossary_terms``) and its tests read this.
"""

from __future__ import annotations

#: The named facts (``tensorfacts``) that run what each definition says torch does, by the term's Chinese
#: word. The glossary cites them under the definition and the build runs them, failing on one that no
#: longer holds. A term missing here is defined, not described: its definition states no behaviour of torch
#: (copy, shallow copy, autograd, memory leak ...); ``tests/test_glossary_and_decisions.py`` names them.
CHECKED_BY: dict[str, tuple[str, ...]] = {
    "张量": ("dense-tensor-reads-storage-by-layout",),
    "克隆": ("copy-ways-every-dtype", "clone-requires-grad-in-grad-mode", "inference-leaf-clone-in-graph",
           "grad-mode-records", "clone-of-no-grad-view-passes-no-gradient", "no-grad-view-edit-breaks-clone"),
    "存储": ("view-write-shows-in-both", "view-shares-base-storage", "dense-tensor-reads-storage-by-layout"),
    "共享内存": ("shared-memory-seen-across-processes",),
    "视图": ("view-write-shows-in-both",),
    "基张量": ("base-names-root-of-view-chain",),
    "重新绑定": ("rebinding-leaves-old-tensor",), "原地操作": ("inplace-ops-write-into-tensor",),
    "别名": ("view-write-shows-in-both", "alias-calls-share-memory", "array-calls-refuse-swapped-or-flipped",
           "from-dlpack-aborts-on-flipped-array"),
    "版本计数器": ("inplace-ops-raise-version", "version-counter-catches-saved-edit"),
    "需要梯度": ("grad-mode-records", "inference-tensor-requiring-grad"),
    "梯度模式": ("grad-mode-records", "inference-mode-grad-on-records-no-node"), "梯度": ("leaf-grad-accumulates",),
    "叶子张量": ("leaf-grad-accumulates", "clone-of-no-grad-view-passes-no-gradient",
             "no-grad-view-operations-pass-no-gradient", "inference-tensor-requiring-grad",
             "inference-module-forward-by-layer", "inference-module-trains-when-rebuilt"),
    "非叶子张量": ("leaf-grad-accumulates",),
    "推理张量": ("inference-tensor-has-no-version-counter", "inference-mode-views-of-normal-tensor"),
    "张量列表": ("list-repeat-holds-one-tensor",), "优化器": ("optimizer-updates-in-place",),
    "梯度检查点": ("checkpoint-reruns-when-backward-needs-it",), "梯度累积": ("leaf-grad-accumulates",),
    "多进程": ("shared-memory-seen-across-processes",),
    "混合精度": ("autocast-lowers-some-ops", "cpu-autocast-takes-only-bfloat16-and-float16"),
    "缓冲区": ("buffer-moves-with-module",),
    "步长": ("dense-tensor-reads-storage-by-layout",), "连续": ("contiguous-copies-only-when-needed",),
    "共轭位": ("conj-bits-only-on-dense-complex",), "负号位": ("conj-bits-only-on-dense-complex",),
    "高级索引": ("advanced-index-read-copies", "numpy-index-read-copies", "index-reads-every-kind",
             "advanced-index-on-meta", "meta-index-read-uninitialized"),
    "推理模式": ("grad-mode-records", "inference-mode-outputs"),
    "异常检测模式": ("anomaly-mode-names-forward-call",),
    "fused 优化器": ("fused-optimizer-step-not-counted",), "worker 进程": ("dataloader-workers-are-processes",),
    "滑动统计量": ("batchnorm-running-statistics",), "基本索引": ("basic-index-read-views", "basic-index-on-meta",
                                                                            "negative-step-slice-raises",
                                                                            "numpy-zero-d-index-reads",
                                                                            "index-reads-every-kind"),
    "保存张量的钩子": ("saved-tensor-hooks-hide-edit", "wrapped-number-saved-outside-hooks"),
}

#: The sections of the behaviour matrix (their labels) that say more about a term, by its Chinese word: the glossary
#: links them under its definition, by their titles.
MATRIX_SECTIONS: dict[str, tuple[str, ...]] = {"叶子张量": ("matrix-view", "matrix-inference")}
