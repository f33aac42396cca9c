"""Source files as documents: a block index of their symbols (tree-sitter), so `path#Symbol` names a definition.

`languages.py` says which files are code and what counts as a symbol in each language, `index.py` builds and
resolves the index, `cache.py` keeps it in the signed index cache by content, `views.py` shows an outline and a
symbol, `literals.py` says which lines are not code at their level (inside strings, heredocs and comments, or
preprocessor directives), the lines a symbol edit leaves as sent. Render describes and never writes: symbol search
and symbol edits are in documents/ (`symbolsearch.py`, `symboledit.py`, `symbolsplice.py`).
"""
