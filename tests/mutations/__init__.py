"""Deliberately wrong solutions of the course assignments, one module per assignment.

The module ``tests.mutations.<name>`` belongs to the assignment whose checks are
``assignments.checks.<name>``.  Its ``MUTATIONS`` is a list of tuples
``(cell_id, old, new, check_id, message)``: the solution with ``old`` replaced by ``new`` in its
task cell ``cell_id`` is a common mistake, and the check ``check_id`` must fail on it with an
error that contains ``message``, the diagnostic that names the mistake.
"""

import importlib

from assignments.checks import MODULES


def for_assignment(name):
    """The wrong solutions of the assignment ``name``."""
    module = MODULES[name].rsplit(".", 1)[1]
    return importlib.import_module(f"tests.mutations.{module}").MUTATIONS
