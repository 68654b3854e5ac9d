"""The two source articles' code and pasted outputs, verbatim, one module per article."""
