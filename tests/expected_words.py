"""What a reader must see in the claims ledger and the behaviour matrix, written here by hand.

The rendered-table tests compare the pages with these words, never with the extensions' own word
tables: a test that reads ``claims_ledger.WORDS`` agrees with any mistake in it (the labels "holds"
and "does not hold" swapped, 是 and 否 swapped). Changing a word on the site is a deliberate act: the
extension's table and this reviewed copy change together (``tests/test_expected_words.py`` compares
them), and the reviewer reads both.

Keys are the values the engine computes, spelled out (``"holds"``, ``"does-not-hold"``, ``True``,
``"refused"`` ...), not imported from the engine.
"""

from __future__ import annotations

LEDGER = {
    "en": {
        "claim": "Claim",
        "source": "From: {where}",
        "verdict": "Verdict",
        "observed": "What this build shows",
        "page": "Shown on",
        "holds": "holds",
        "does-not-hold": "does not hold",
        "qualifier": " ({qualifier})",
        "output-differs": "output differs from the article's",
        "not-a-claim": "not a claim",
        "problem": "no verdict: {problem}",
        # each count follows a label, so that no word has to agree with it ("1 do not hold")
        "summary": "Claims checked on torch {torch}: {total}. Verdicts: holds {holds}, does not hold {not_hold}, "
        "output differs from the article's {differs}. Rows that are not claims (code damaged in publishing, a "
        "commented-out line), not counted: {not_claims}.",
        "summary, all claims": "Claims checked on torch {torch}: {total}. Verdicts: holds {holds}, does not hold "
        "{not_hold}, output differs from the article's {differs}.",
    },
    "zh_CN": {
        "claim": "原博文的说法",
        "source": "出处：{where}",
        "verdict": "结论",
        "observed": "本次构建的实际结果",
        "page": "演示页面",
        "holds": "成立",
        "does-not-hold": "不成立",
        "qualifier": "（{qualifier}）",
        "output-differs": "输出与原文不同",
        "not-a-claim": "不算原文的说法",
        "problem": "没有结论：{problem}",
        "summary": "共 {total} 条说法，在 torch {torch} 上检验：{holds} 条成立，{not_hold} 条不成立，"
        "{differs} 条输出与原文不同。另有 {not_claims} 行不算原文的说法"
        "（发表时损坏的代码、被注释掉的一行），不计入统计。",
        "summary, all claims": "共 {total} 条说法，在 torch {torch} 上检验：{holds} 条成立，"
        "{not_hold} 条不成立，{differs} 条输出与原文不同。",
    },
}

MATRIX = {
    "en": {
        "operation": "how b is made",
        "same_object": "same object",
        "type": "type(b)",
        "shares_storage": "shares storage",
        "requires_grad": "requires_grad",
        "grad_fn": "grad_fn",
        "shares_version": "shares version counter",
        "inplace_edit": "edit b in place, then backward",
        "inplace_edit_no_grad": "edit b under no_grad, then backward",
        "raised": "warning or error",
        True: "yes",
        False: "no",
        "refused": "error at the edit",
        "detected": "error at backward",
        "silent": "wrong gradient, no error",
        "unaffected": "gradient unaffected",
        "no-graph": "no graph (a needs no grad)",
        "no-version-counter": "error: a has no version counter",
        "inference-edit": "error at the edit (inference tensor)",
        "changed_anyway": ", yet a changed",
        "refusal": "“{word}”",
        "not_made": "—",
        "none_raised": "none",
        "caption": "Source: {code} — probed on torch {torch}",
        "messages": "The messages, first sentence only:",
        "message": ": ",
    },
    "zh_CN": {
        "operation": "得到 b 的写法",
        "same_object": "同一对象",
        "type": "type(b)",
        "shares_storage": "共享存储",
        "requires_grad": "requires_grad",
        "grad_fn": "grad_fn",
        "shares_version": "共享版本计数器",
        "inplace_edit": "原地修改 b 后反向传播",
        "inplace_edit_no_grad": "在 no_grad 下原地修改 b 后反向传播",
        "raised": "警告或报错",
        True: "是",
        False: "否",
        "refused": "修改时报错",
        "detected": "反向传播时报错",
        "silent": "梯度错误，不报错",
        "unaffected": "梯度不受影响",
        "no-graph": "无计算图（a 不需要梯度）",
        "no-version-counter": "报错：a 没有版本计数器",
        "inference-edit": "修改时报错（推理张量）",
        "changed_anyway": "，但 a 的值已被改动",
        "refusal": "“{word}”",
        "not_made": "—",
        "none_raised": "无",
        "caption": "源张量：{code}（在 torch {torch} 上实测）",
        "messages": "警告和报错信息（只列第一句）：",
        "message": "：",
    },
}

#: How each source tensor of the matrix is written above its table (the same in every edition).
#: ``tests/test_expected_words.py`` runs each line and checks it makes the kind of tensor named.
SOURCE_CAPTIONS = {
    "leaf": "a = torch.tensor([1., 2., 3.], requires_grad=True)",
    "non-leaf": "x = torch.tensor([1., 2., 3.], requires_grad=True); a = x * 2",
    "parameter": "a = torch.nn.Parameter(torch.tensor([1., 2., 3.]))",
    "view": "base = torch.tensor([0., 1., 2., 3.], requires_grad=True); a = base[1:]",
    "plain": "a = torch.tensor([1., 2., 3.])",
    "inference": "with torch.inference_mode(): a = torch.tensor([1., 2., 3.])",
}


def ledger(language: str) -> dict:
    return LEDGER[language]


def matrix(language: str) -> dict:
    return MATRIX[language]
