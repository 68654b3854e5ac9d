"""Article 000, "Tensor copying pitfalls" (tensor 的复制避坑): its code and pasted outputs, verbatim.

Each example is kept as the article prints it, with the comments that show outputs removed (those
outputs are kept beside it, in the order of the ``print`` calls that produce them).
"""

#: The article's title and its sections (by id), in every edition's language.
TITLE = {"en": "Tensor copying pitfalls", "zh_CN": "tensor 的复制避坑"}
SECTIONS = {
    "origin": {"en": "Where the problem came from", "zh_CN": "问题来源"},
    "safest": {"en": "The safest way", "zh_CN": "最保险的办法"},
    "clone": {"en": "Section 1, tensor.clone()", "zh_CN": "第 1 节 tensor.clone()"},
    "detach": {"en": "Section 2, tensor.detach()", "zh_CN": "第 2 节 tensor.detach()"},
    "note": {"en": "But note", "zh_CN": "但是要注意"},
    "also": {"en": "Also", "zh_CN": "还有"},
}

#: The loop of article 000, its lines exactly as printed (the blog's “// A code block” placeholder line above them
#: left out): its indentation was lost.
LOOP_AS_PRINTED = """\
a = torch.zeros(2, 3)
for i in range(2):
for j in range(3):
b = a.data
b[i, j] = 1
print("b:", b)
print("a:", a)
"""

#: The same loop with the only indentation that makes it valid Python.
LOOP_RESTORED = """\
a = torch.zeros(2, 3)
for i in range(2):
    for j in range(3):
        b = a.data
        b[i, j] = 1
        print("b:", b)
        print("a:", a)
"""

#: The "out" block under the loop, as the article pastes it.
LOOP_OUT = """\
b: tensor([[1., 0., 0.],
[0., 0., 0.]])
a: tensor([[1., 0., 0.],
[0., 0., 0.]])
b: tensor([[1., 1., 0.],
[0., 0., 0.]])
a: tensor([[1., 1., 0.],
[0., 0., 0.]])
b: tensor([[1., 1., 1.],
[0., 0., 0.]])
a: tensor([[1., 1., 1.],
[0., 0., 0.]])
b: tensor([[1., 1., 1.],
[1., 0., 0.]])
a: tensor([[1., 1., 1.],
[1., 0., 0.]])
b: tensor([[1., 1., 1.],
[1., 1., 0.]])
a: tensor([[1., 1., 1.],
[1., 1., 0.]])
b: tensor([[1., 1., 1.],
[1., 1., 1.]])
a: tensor([[1., 1., 1.],
[1., 1., 1.]])
"""

#: Article 000, section 1 (clone). Each ``print`` carries the output the article's comment shows.
CLONE_EXAMPLE = """\
a = torch.tensor([1,2,3], requires_grad=True, dtype=torch.float32)
c = a.clone()
b = (a**2).sum()
b.backward()
print(a)
print(c)
print(a.grad)
print(c.grad)
print(a.requires_grad)
print(c.requires_grad)
a = 1
print(c)
"""
CLONE_COMMENTS = (
    "tensor([1., 2., 3.], requires_grad=True)",
    "tensor([1., 2., 3.], grad_fn=<CloneBackward>)",
    "tensor([2., 4., 6.])",
    "None",
    "True",
    "True",
    "tensor([1., 2., 3.], grad_fn=<CloneBackward>)",
)

#: Article 000, section 2 (detach), same layout.
DETACH_EXAMPLE = CLONE_EXAMPLE.replace("c = a.clone()", "c = a.detach()")
DETACH_COMMENTS = (
    "tensor([1., 2., 3.], requires_grad=True)",
    "tensor([1., 2., 3.])",
    "tensor([2., 4., 6.])",
    "None",
    "True",
    "False",
    "tensor([1., 2., 3.])",
)

#: Article 000, "But note". The article leaves ``a[1,2] = 0`` commented out.
NOTE_EXAMPLE = """\
a = torch.ones(2,2)
a.requires_grad = True
c = a.detach()
#a[1,2] = 0
print(c)
print(a)
b = (a*2).sum()
b.backward()
print(a.grad)
a = a - a.grad
print(a)
print(c)
"""
NOTE_PRINT_C_COMMENT = "tensor([1., 2., 3.])"
NOTE_OUT = """\
tensor([[1., 1.],
[1., 1.]])
tensor([[1., 1.],
[1., 1.]], requires_grad=True)
tensor([[2., 2.],
[2., 2.]])
tensor([[-1., -1.],
[-1., -1.]], grad_fn=<SubBackward0>)
tensor([[1., 1.],
[1., 1.]])
"""

#: Article 000, "Also".
ALSO_EXAMPLE = """\
a = torch.ones(2,2)
a.requires_grad = True
c = a
a = a + 1
print(a)
print(c)
"""
ALSO_OUT = """\
tensor([[2., 2.],
[2., 2.]], grad_fn=<AddBackward0>)
tensor([[1., 1.],
[1., 1.]], requires_grad=True)
"""
