#!/usr/bin/env bash
# A version manager's shell functions, in the style of nvm.sh: sourced, never run.

{ # this ensures the entire script is downloaded #

NVM_SCRIPT_SOURCE="${BASH_SOURCE[0]}"

nvm_is_zsh() {
  [ -n "${ZSH_VERSION-}" ]
}

nvm_echo() {
  command printf %s\\n "$*" 2>/dev/null
}

nvm_err() {
  >&2 nvm_echo "$@"
}

# Whether a command exists (not an alias or a function).
nvm_has() {
  type "${1-}" >/dev/null 2>&1
}

function nvm_grep {
  GREP_OPTIONS='' command grep "$@"
}

function nvm_version_path() {
  local VERSION
  VERSION="${1-}"
  if [ -z "${VERSION}" ]; then
    nvm_err 'version is required'
    return 3
  fi
  nvm_echo "${NVM_DIR}/versions/node/${VERSION}"
}

nvm_print_help() {
  cat <<EOT

Node Version Manager

Usage:
  nvm --help                  Show this message
  nvm install <version>       Download and install a <version>
EOT
}

nvm() {
  if [ $# -lt 1 ]; then
    nvm --help
    return
  fi

  local COMMAND
  COMMAND="${1-}"
  shift

  # Helpers only this command uses are defined inside it.
  nvm_list_dirs() {
    command ls -1 "${NVM_DIR}/versions/node" 2>/dev/null
  }

  case $COMMAND in
    'help' | '--help')
      nvm_print_help
    ;;
    'ls' | 'list')
      nvm_list_dirs
    ;;
    *)
      nvm_err "unknown command: ${COMMAND}"
      return 127
    ;;
  esac
}

nvm_process_parameters() {
  local NVM_AUTO_MODE
  NVM_AUTO_MODE='use'
  while [ "$#" -ne 0 ]; do
    case "$1" in
      --install) NVM_AUTO_MODE='install' ;;
      --no-use) NVM_AUTO_MODE='none' ;;
    esac
    shift
  done
  nvm_echo "${NVM_AUTO_MODE}"
}

nvm_process_parameters "$@"

} # this ensures the entire script is downloaded #
