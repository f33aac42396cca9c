# ruff: noqa: E501
"""wcmatch's translations of the built-in policy globs, stored so `-c /ls` need not import wcmatch (globs.py).

Generated from wcmatch.glob.translate(pattern, flags=GLOBSTAR | DOTGLOB | FORCEUNIX); a floating `**/name` is stored
as `name` (globs.split). tests/workspace/test_globs.py checks every entry against the installed wcmatch and prints
the table when run as `python -m tests.workspace.test_globs`."""

TRANSLATED: dict[str, str] = {
    '.env': '^(?s:\\.env[/]*?)$',
    '.env.*': '^(?s:\\.env\\.[^/]*?[/]*?)$',
    '*.pem': '^(?s:(?=[^/])(?!\\.{1,2}(?:$|[/]))[^/]*?\\.pem[/]*?)$',
    '*.key': '^(?s:(?=[^/])(?!\\.{1,2}(?:$|[/]))[^/]*?\\.key[/]*?)$',
    '*.p12': '^(?s:(?=[^/])(?!\\.{1,2}(?:$|[/]))[^/]*?\\.p12[/]*?)$',
    '*.pfx': '^(?s:(?=[^/])(?!\\.{1,2}(?:$|[/]))[^/]*?\\.pfx[/]*?)$',
    '*.jks': '^(?s:(?=[^/])(?!\\.{1,2}(?:$|[/]))[^/]*?\\.jks[/]*?)$',
    '*.keystore': '^(?s:(?=[^/])(?!\\.{1,2}(?:$|[/]))[^/]*?\\.keystore[/]*?)$',
    'id_rsa*': '^(?s:id_rsa[^/]*?[/]*?)$',
    'id_dsa*': '^(?s:id_dsa[^/]*?[/]*?)$',
    'id_ecdsa*': '^(?s:id_ecdsa[^/]*?[/]*?)$',
    'id_ed25519*': '^(?s:id_ed25519[^/]*?[/]*?)$',
    '.netrc': '^(?s:\\.netrc[/]*?)$',
    '_netrc': '^(?s:_netrc[/]*?)$',
    '.pgpass': '^(?s:\\.pgpass[/]*?)$',
    '.npmrc': '^(?s:\\.npmrc[/]*?)$',
    '.pypirc': '^(?s:\\.pypirc[/]*?)$',
    '.git-credentials': '^(?s:\\.git\\-credentials[/]*?)$',
    '.ssh': '^(?s:\\.ssh[/]*?)$',
    '.gnupg': '^(?s:\\.gnupg[/]*?)$',
    '**/.aws/credentials': '^(?s:(?:(?!(?:[/]|^)(?:\\.{1,2})(?:$|[/])).)*?(?:^|[/]+)\\.aws[/]+credentials[/]*?)$',
    '**/.aws/config': '^(?s:(?:(?!(?:[/]|^)(?:\\.{1,2})(?:$|[/])).)*?(?:^|[/]+)\\.aws[/]+config[/]*?)$',
    '**/.docker/config.json': '^(?s:(?:(?!(?:[/]|^)(?:\\.{1,2})(?:$|[/])).)*?(?:^|[/]+)\\.docker[/]+config\\.json[/]*?)$',
    '**/.kube/config': '^(?s:(?:(?!(?:[/]|^)(?:\\.{1,2})(?:$|[/])).)*?(?:^|[/]+)\\.kube[/]+config[/]*?)$',
    '*kubeconfig*': '^(?s:(?>(?=[^/])(?!\\.{1,2}(?:$|[/]))[^/]*?kubeconfig)[^/]*?[/]*?)$',
    'credentials*.json': '^(?s:credentials[^/]*?\\.json[/]*?)$',
    'service-account*.json': '^(?s:service\\-account[^/]*?\\.json[/]*?)$',
    '**/.config/gcloud': '^(?s:(?:(?!(?:[/]|^)(?:\\.{1,2})(?:$|[/])).)*?(?:^|[/]+)\\.config[/]+gcloud[/]*?)$',
    '.azure': '^(?s:\\.azure[/]*?)$',
    '*.tfstate': '^(?s:(?=[^/])(?!\\.{1,2}(?:$|[/]))[^/]*?\\.tfstate[/]*?)$',
    '*.tfvars': '^(?s:(?=[^/])(?!\\.{1,2}(?:$|[/]))[^/]*?\\.tfvars[/]*?)$',
    '.env.example': '^(?s:\\.env\\.example[/]*?)$',
    '.env.sample': '^(?s:\\.env\\.sample[/]*?)$',
    '.env.template': '^(?s:\\.env\\.template[/]*?)$',
    '*.pub': '^(?s:(?=[^/])(?!\\.{1,2}(?:$|[/]))[^/]*?\\.pub[/]*?)$',
    '**': '^(?s:(?:(?!(?:[/]|^)(?:\\.{1,2})(?:$|[/])).)*?(?:^|$|[/]+))$',
}
