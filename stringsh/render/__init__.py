"""Documents: the SFMD block index (scan, sfmd, index), its cache, the plain and rich renderers, the watcher; and
replies styled for people (replyparts, replies, helpview), shared by the REPL and `--color`.

Pure library code: nothing here reads the workspace; the commands hand it text read through the engine.
"""
