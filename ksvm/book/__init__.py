"""The book's own support: what the chapters import besides the methods.

Not part of the estimators' API: ``import ksvm`` never loads it, and nothing in the
library imports it.  It imports nothing itself; each module is imported on its own.

Modules
-------
report
    The chapters' printed claims: bounds checked before they are printed, numbers
    rounded to stable digits, relative errors; listings of the package's source.
plotting
    The two classes and a decision function's level sets, drawn alike in every
    chapter (needs matplotlib).
explore
    Figures a reader can move: an ipywidgets explorer in Jupyter and a slider over
    precomputed frames in the HTML book, from one drawing function (needs matplotlib,
    and ipywidgets for the live widget).
explorers
    The book's explorers, one module per topic (ascent, features, kernel_trick, lsvm,
    margin).
"""
