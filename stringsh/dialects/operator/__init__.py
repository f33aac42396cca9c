"""OPERATOR_CMD / OPERATOR_RESULT blocks (seed 000): `model.py` is the contract between the block parser and the
actions."""
