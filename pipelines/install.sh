#!/usr/bin/env bash
# Installs the hermes-loop binaries, their man pages and shell completions under a prefix.
#   pipelines/install.sh [FROM]        FROM: folder of built binaries [target/release]
# Environment: PREFIX [/usr/local], DESTDIR [] (staged installs: files go to
# $DESTDIR$PREFIX/…), SPLIT_DEBUG [1].
#
# With SPLIT_DEBUG=1 each binary's debug info (line tables and symbols, for backtraces) moves to
# $PREFIX/bin/.debug/NAME.debug and the installed binary keeps a .gnu_debuglink to it: the
# binary stays small, and both Rust's backtraces and gdb find the line tables there.
# Completions and man pages come from the binaries themselves (`--generate`), so they always
# match the flags that were built.
set -euo pipefail

FROM="${1:-target/release}"
PREFIX="${PREFIX:-/usr/local}"
DESTDIR="${DESTDIR:-}"
SPLIT_DEBUG="${SPLIT_DEBUG:-1}"
BINS="hermes-chat hermes-curate hermes-index hermes-memory hermes-recall hermes-review hermes-skill-scan hermes-skills"

die() { echo "install.sh: error: $*" >&2; exit 2; }

root="$DESTDIR$PREFIX"
bindir="$root/bin"
mandir="$root/share/man/man1"
bashdir="$root/share/bash-completion/completions"
zshdir="$root/share/zsh/site-functions"
fishdir="$root/share/fish/vendor_completions.d"

for b in $BINS; do
    [ -x "$FROM/$b" ] || die "$FROM/$b is missing (run \`make release\` first, or name the folder of built binaries)"
done
if [ "$SPLIT_DEBUG" = 1 ]; then
    command -v objcopy >/dev/null || die "objcopy is needed to split debug info (apt-get install binutils), or pass SPLIT_DEBUG=0"
fi

mkdir -p "$bindir" "$mandir" "$bashdir" "$zshdir" "$fishdir"
for b in $BINS; do
    # Each file is written beside its target and renamed over it, so a running copy or a
    # failed install never leaves half a file.
    tmp="$bindir/.$b.install.$$"
    trap 'rm -f "$tmp"' EXIT
    cp "$FROM/$b" "$tmp"
    if [ "$SPLIT_DEBUG" = 1 ]; then
        mkdir -p "$bindir/.debug"
        objcopy --only-keep-debug "$FROM/$b" "$bindir/.debug/$b.debug"
        chmod 0644 "$bindir/.debug/$b.debug"
        # The symbol table goes too (2.5 MB): the debug file keeps it, and backtraces name
        # functions from it. The link is looked up by file name beside the binary and in its
        # .debug/ folder.
        objcopy --strip-all --add-gnu-debuglink="$bindir/.debug/$b.debug" "$tmp"
    fi
    chmod 0755 "$tmp"
    mv -f "$tmp" "$bindir/$b"

    "$FROM/$b" --generate man >"$mandir/$b.1"
    "$FROM/$b" --generate complete-bash >"$bashdir/$b"
    "$FROM/$b" --generate complete-zsh >"$zshdir/_$b"
    "$FROM/$b" --generate complete-fish >"$fishdir/$b.fish"
    chmod 0644 "$mandir/$b.1" "$bashdir/$b" "$zshdir/_$b" "$fishdir/$b.fish"
done
trap - EXIT
echo "installed $(echo $BINS | wc -w) binaries, man pages and completions under $root"
