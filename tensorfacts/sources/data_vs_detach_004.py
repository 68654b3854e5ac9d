"""Article 004, ".data vs. detach()" (.data 与 detach()): its code and pasted outputs, verbatim."""

#: The article's title and its sections (by id), in every edition's language.
TITLE = {"en": ".data vs. detach()", "zh_CN": ".data 与 detach()"}
SECTIONS = {
    "intro": {"en": "Introduction", "zh_CN": "引言"},
    "data": {"en": "data", "zh_CN": "data"},
    "data-points": {"en": "data, points (1) and (2)", "zh_CN": "data 的 (1)(2) 两点"},
    "detach": {"en": "detach()", "zh_CN": "detach()"},
    "detach-points": {"en": "Two points on detach()", "zh_CN": "tensor.detach() 的两点总结"},
    "summary": {"en": "Summary of the differences", "zh_CN": "区别总结"},
}

#: Article 004: the ``.data`` example (``detach`` replaces ``data`` for the second one).
DATA_EXAMPLE = """\
a = torch.tensor([1,2,3.], requires_grad = True)
out = a.sigmoid()
c = out.data
c.zero_()
print(c.requires_grad)
print(c)
print(out.requires_grad)
print(out)
print("----------------------------------------------")
out.sum().backward()
print(a.grad)
"""
DATA_OUT = """\
False
tensor([0., 0., 0.])
True
tensor([0., 0., 0.], grad_fn=<SigmoidBackward>)
----------------------------------------------
tensor([0., 0., 0.])
"""
DETACH_004_EXAMPLE = DATA_EXAMPLE.replace("c = out.data", "c = out.detach()")
DETACH_004_OUT = """\
False
tensor([0., 0., 0.])
True
tensor([0., 0., 0.], grad_fn=<SigmoidBackward>)
----------------------------------------------
"""
DETACH_004_ERROR = (
    "RuntimeError: one of the variables needed for gradient computation has been modified by "
    "an inplace operation"
)
