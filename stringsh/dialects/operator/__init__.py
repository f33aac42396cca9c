"""OPERATOR_CMD / OPERATOR_RESULT blocks (docs/operator-protocol.md) on the engine: the block grammar and the
contract between parser and actions are the wire's (`protocol/operator_blocks.py`, `protocol/operator_model.py`);
here are the actions, the confirmation rule, the interface spec and the loop."""
