"""The engine's operations, one family per module (the `Workspace` facade delegates to them):

    stat      stat          metadata of one path
    read      read_bytes, read_text, fingerprint
    listdir   list_dir      direct children of a folder; list_tree the same, folder by folder, never through a link
    write     write_text, append_text, encode_for
    lines     edit          replace a range of lines in place (splice_lines: the one line-range editor)
    replace   replace       exact old -> new text in place (the one exact-replace editor)
    apply     apply         a change set, all or nothing (and the locked core every writer shares)
    revert    revert, undo  put back what a change set replaced
    mkdir     mkdir         a folder (and its parents), journalled as folders made
    move      move          a file, symlink or folder: files deleted and written, folders and links made and removed
    copy      copy_file     one regular file to a new path; copy_folder a folder, whole, to a new path
    delete    delete        a file, a symlink (unlinked, not followed) or a folder (recursive), all kept for undo
    shell     topic shells and one-shot `bash -c`, audited
    guard     the policy checks every operation makes first

Each takes the workspace and one typed, immutable request and returns a typed response. Requests and the
read-side responses are NamedTuples, defined with their operation: on Python 3.11 a frozen dataclass costs about
five times as much to define, and every command loads the read side. Every permission check lives inside the
operation (an `edit` apply's and a revert's need for `write` too), so calling it directly is as safe as calling
the facade. Modules load on first use: a read-only
command never imports the journal, sqlite3 or the shell.
"""
