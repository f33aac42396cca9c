"""OPERATOR_CMD / OPERATOR_RESULT blocks (docs/operator-protocol.md) on the engine: the block grammar and the
contract between parser and actions are the wire's (`protocol/operator_blocks.py`, `protocol/operator_model.py`,
`protocol/operator_spec.py` the interface spec); here are the actions, the confirmation rule and the loop. A front
end: nothing below the front ends imports it (the dispatcher is handed `serve.answer_request` by cli.py)."""
