"""Helpers the test modules share, one module per game (``helpers.talon``, ``helpers.planetoids``,
``helpers.union_wars``): scenario builders, action shortcuts, state accessors and the checks that
several test files run.  A test module imports them (``from helpers.talon import act``), never
another test module.

``tests/`` has no ``__init__.py``, so pytest puts it on ``sys.path`` when it loads
``tests/conftest.py`` (the default "prepend" import mode), which makes ``helpers`` importable in
every run, pytest-xdist's workers included; ``tests/conftest.py`` also registers the package for
pytest's assertion rewriting, so a failed ``assert`` in a helper explains itself as one in a test.
"""
