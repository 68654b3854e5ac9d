"""The named fact on what ``torch.autograd.detect_anomaly()`` adds to autograd's errors (the glossary's anomaly
mode entry). Registered on import by :mod:`tensorfacts.facts`, whose docstring says what a fact is.
"""

from __future__ import annotations

import torch

from tensorfacts.fact_registry import Fact, fact


@fact("anomaly-mode-names-forward-call", {
    "en": "Inside torch.autograd.detect_anomaly(), y = a.sigmoid() of a leaf a that requires grad, then y.mul_(2): "
          "backward raises the version-counter RuntimeError, and a warning names SigmoidBackward0 with the "
          "traceback of the forward call that created it, whose last frame is the line of y = a.sigmoid(); "
          "without the mode the same error comes with no such warning. Inside the mode too, o = a.exp().sum() of such "
          "a leaf, o.backward() twice: the second raises \"Trying to backward through the graph a second time\", and a "
          "warning names ExpBackward0 with the traceback of the forward call, whose last frame is the line of o; "
          "(a * 2).backward() raises \"grad can be implicitly created only for scalar outputs\" and "
          "torch.ones(3).sum().backward() raises \"... does not require grad ...\", each before any node runs (a "
          "pre-hook on (a * 2).grad_fn is not called; torch.ones(3).sum() has no grad_fn; in the twice case a "
          "pre-hook on o.grad_fn, SumBackward0, is called in the second call) and with no \"Error detected in\" "
          "warning.",
    "zh_CN": "在 torch.autograd.detect_anomaly() 里，对需要梯度的叶子张量 a 计算 y = a.sigmoid()，"
             "再 y.mul_(2)：反向传播抛出 RuntimeError，指出求梯度所需的一个张量已被修改，"
             "同时一条警告给出 SigmoidBackward0 和创建它的前向调用的调用栈，栈的最后一帧是 y = a.sigmoid() 那一行；"
             "不打开该模式时，同样的错误不带这条警告。同样在该模式里，对这样的叶子张量计算 o = a.exp().sum()，"
             "调用两次 o.backward()：第二次抛出“Trying to backward through the graph a second time”，"
             "同时一条警告给出 ExpBackward0 和创建它的前向调用的调用栈，栈的最后一帧是 o 那一行；"
             "(a * 2).backward() 抛出“grad can be implicitly created only for scalar outputs”，"
             "torch.ones(3).sum().backward() 抛出“... does not require grad ...”，这两个错误都在任何节点运行之前抛出"
             "（(a * 2).grad_fn 上的前置钩子没有被调用；torch.ones(3).sum() 没有 grad_fn；调用两次的那种情况下，"
             "o.grad_fn 即 SumBackward0 上的前置钩子在第二次调用中被调用），不带“Error detected in”警告。",
})
def _anomaly_mode_names_forward_call() -> Fact:
    import contextlib
    import inspect
    import warnings

    outcomes = []
    for anomaly in (True, False):
        a = torch.ones(3, requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with torch.autograd.detect_anomaly() if anomaly else contextlib.nullcontext():
                y = a.sigmoid()
                line = inspect.currentframe().f_lineno - 1
                y.mul_(2)
                try:
                    y.sum().backward()
                except RuntimeError as error:
                    raised = "modified by an inplace operation" in str(error)
                else:
                    raised = False
        named = [str(w.message) for w in caught  # any warning naming the node, an error of a node or a forward call
                 if any(word in str(w.message) for word in ("Traceback of forward call", "Error detected in",
                                                             "SigmoidBackward0"))]
        outcomes.append((raised, len(named) == 1 and "Traceback of forward call" in named[0]
                         and "SigmoidBackward0" in named[0] and f"line {line}," in named[0].split("File ")[-1],
                         len(named)))
    others = {}
    for case, message in (("twice", "backward through the graph a second time"), ("no grad", "does not require grad"),
                          ("non-scalar", "grad can be implicitly created only for scalar outputs")):
        a = torch.ones(3, requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with torch.autograd.detect_anomaly():
                o = a.exp().sum() if case == "twice" else a * 2 if case == "non-scalar" else torch.ones(3).sum()
                line = inspect.currentframe().f_lineno - 1
                if case == "twice":
                    o.backward()  # runs the graph and frees what its nodes saved
                ran = []  # o's own node, if it has one, records here each time it runs from now on
                if o.grad_fn is not None:
                    o.grad_fn.register_prehook(lambda grad_outputs, ran=ran: ran.append(True))
                try:
                    o.backward()
                except RuntimeError as error:
                    raised = message in str(error)
                else:
                    raised = False
        named = [str(w.message) for w in caught if "Error detected in" in str(w.message)]
        others[case] = (raised, bool(ran), [m.split(".")[0] for m in named],
                        all(f"line {line}," in m.split("File ")[-1] for m in named))
    expected = {"twice": (True, True, ["Error detected in ExpBackward0"], True), "non-scalar": (True, False, [], True),
                "no grad": (True, False, [], True)}
    return Fact(outcomes == [(True, True, 1), (True, False, 0)] and others == expected,
                f"with the mode (raised, one warning names the node and the line, warnings that name a node, a node's "
                f"error or a forward call): {outcomes[0]}; without: {outcomes[1]}; "
                f"inside the mode (raised, o's node ran, node warnings, last frame the forward line): {others}")
