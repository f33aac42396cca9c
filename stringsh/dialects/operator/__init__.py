"""OPERATOR_CMD / OPERATOR_RESULT blocks (docs/operator-protocol.md): `model.py` is the contract between the block
parser and the actions."""
