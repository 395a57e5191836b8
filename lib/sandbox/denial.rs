//! Reading a command's output for what the sandbox refused, so the model reads one line it
//! can act on ("write to ~/.bashrc denied by the sandbox (workspace-write)") instead of a
//! bare "Permission denied" it would retry with sudo.
//!
//! The kernel does not tell the parent which access was refused, so the output is read the
//! way a person would: an error line that names a path and a permission errno, or a network
//! failure while the network is off. A path is reported only when the policy itself forbids
//! that access, so a file that is merely mode 0600 is not blamed on the sandbox.

use std::path::{Path, PathBuf};

use super::policy::{Mode, Network, Policy};

/// Messages of the errnos Landlock, the read-only mounts and seccomp give.
const REFUSALS: &[&str] = &[
    "Permission denied",
    "Operation not permitted",
    "Read-only file system",
    "EACCES",
    "EPERM",
    "EROFS",
];

/// What tools print when they cannot reach the network.
const NETWORK_FAILURES: &[&str] = &[
    "Could not resolve host",
    "Temporary failure in name resolution",
    "Name or service not known",
    "Network is unreachable",
    "Couldn't connect to server",
    "Failed to connect",
    "Failed to establish a new connection",
    "getaddrinfo",
    "EAI_AGAIN",
    "ENOTFOUND",
    "socket: Permission denied",
    "Could not connect",
    "unable to access",
    "Connection refused",
    "nodename nor servname",
    "No address associated with hostname",
];

const NETWORK_OFF: &str =
    "network access denied by the sandbox (network off; --network on allows it)";

/// One line about what the sandbox refused, if the output shows a refusal the policy
/// explains. `cwd` resolves relative paths; `home` shortens paths under it to `~`.
pub fn explain(
    output: &str,
    policy: &Policy,
    temp_dir: &Path,
    cwd: &Path,
    home: Option<&Path>,
) -> Option<String> {
    if policy.mode == Mode::FullAccess {
        return None;
    }
    for line in output.lines() {
        if !REFUSALS.iter().any(|r| line.contains(r)) {
            continue;
        }
        for candidate in paths_in(line) {
            if candidate.starts_with("/dev/tcp/") || candidate.starts_with("/dev/udp/") {
                if policy.network == Network::Off {
                    return Some(NETWORK_OFF.into());
                }
                continue;
            }
            let path = absolute(&candidate, cwd, home);
            let shown = shorten(&path, home);
            if policy.is_unreadable(&path) {
                return Some(format!(
                    "access to {shown} denied by the sandbox: credentials are never readable by commands"
                ));
            }
            if !policy.may_write(&path, temp_dir) && looks_like_write(line) {
                let why = if policy.read_only_paths.iter().any(|p| path.starts_with(p)) {
                    "protected path".to_string()
                } else {
                    policy.mode.as_str().to_string()
                };
                return Some(format!("write to {shown} denied by the sandbox ({why})"));
            }
        }
    }
    if policy.network == Network::Off
        && output
            .lines()
            .any(|l| NETWORK_FAILURES.iter().any(|f| l.contains(f)))
    {
        return Some(NETWORK_OFF.into());
    }
    None
}

/// Whether an error line is about writing (creating, removing, changing) rather than
/// reading. Shells say nothing of the kind for `> file`, so a bare `path: Permission denied`
/// counts as a write when the path is one the policy does not let us write.
fn looks_like_write(line: &str) -> bool {
    const READS: &[&str] = &["cannot open", "cannot access", "cannot read", "cannot stat"];
    const READERS: &[&str] = &[
        "cat",
        "head",
        "tail",
        "less",
        "more",
        "grep",
        "rg",
        "ls",
        "wc",
        "sort",
        "uniq",
        "diff",
        "cmp",
        "file",
        "stat",
        "od",
        "xxd",
        "hexdump",
        "md5sum",
        "sha1sum",
        "sha256sum",
        "base64",
        "strings",
        "find",
        "du",
        "source",
        ".",
    ];
    let program = line.split(':').next().unwrap_or("").trim();
    line.contains("Read-only file system")
        || !(READS.iter().any(|r| line.contains(r)) || READERS.contains(&program))
}

/// Path-like words of an error line: quoted ones first (`'…'`, `‘…’`, `"…"`), then the
/// `prefix: PATH: message` shape of shells and coreutils.
fn paths_in(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (open, close) in [('\'', '\''), ('‘', '’'), ('"', '"'), ('`', '\'')] {
        let mut rest = line;
        while let Some(start) = rest.find(open) {
            let after = &rest[start + open.len_utf8()..];
            let Some(end) = after.find(close) else { break };
            let word = &after[..end];
            if word.contains('/') || word.starts_with('~') || word.starts_with('.') {
                out.push(word.to_string());
            }
            rest = &after[end + close.len_utf8()..];
        }
    }
    for part in line.split(": ") {
        let part = part.trim();
        if (part.starts_with('/') || part.starts_with('~') || part.contains('/'))
            && !part.contains(' ')
            && !part.contains("://")
        {
            out.push(part.to_string());
        }
    }
    out
}

fn absolute(word: &str, cwd: &Path, home: Option<&Path>) -> PathBuf {
    let path = match (word.strip_prefix("~/"), home) {
        (Some(rest), Some(h)) => h.join(rest),
        _ => cwd.join(word),
    };
    normalize(&path)
}

fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

fn shorten(path: &Path, home: Option<&Path>) -> String {
    match home.and_then(|h| path.strip_prefix(h).ok()) {
        Some(rest) if rest.as_os_str().is_empty() => "~".into(),
        Some(rest) => format!("~/{}", rest.display()),
        None => path.display().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::policy::Places;

    fn policy(mode: Mode, network: Network) -> Policy {
        Policy::for_session(
            mode,
            network,
            &Places {
                workspace: Path::new("/w"),
                hermes_home: Path::new("/h/.hermes"),
                user_home: Some(Path::new("/h")),
            },
        )
    }

    fn explain_ww(output: &str) -> Option<String> {
        explain(
            output,
            &policy(Mode::WorkspaceWrite, Network::Off),
            Path::new("/t"),
            Path::new("/w"),
            Some(Path::new("/h")),
        )
    }

    #[test]
    fn a_shell_redirection_outside_the_workspace_is_reported_as_a_write() {
        assert_eq!(
            explain_ww("bash: line 1: /h/.bashrc: Permission denied").as_deref(),
            Some("write to ~/.bashrc denied by the sandbox (workspace-write)")
        );
        assert_eq!(
            explain_ww("touch: cannot touch '/etc/cron.d/x': Permission denied").as_deref(),
            Some("write to /etc/cron.d/x denied by the sandbox (workspace-write)")
        );
        assert_eq!(
            explain_ww("rm: cannot remove '../outside': Permission denied").as_deref(),
            Some("write to /outside denied by the sandbox (workspace-write)")
        );
    }

    #[test]
    fn protected_paths_and_credentials_are_named_as_such() {
        assert_eq!(
            explain_ww("bash: .git/hooks/pre-commit: Read-only file system").as_deref(),
            Some("write to /w/.git/hooks/pre-commit denied by the sandbox (protected path)")
        );
        assert_eq!(
            explain_ww("cat: /h/.ssh/id_ed25519: Permission denied").as_deref(),
            Some(
                "access to ~/.ssh/id_ed25519 denied by the sandbox: credentials are never readable by commands"
            )
        );
        assert_eq!(
            explain_ww("PermissionError: [Errno 13] Permission denied: '/h/.hermes/.env'")
                .as_deref(),
            Some(
                "access to ~/.hermes/.env denied by the sandbox: credentials are never readable by commands"
            )
        );
    }

    #[test]
    fn a_refusal_the_policy_allows_is_not_blamed_on_the_sandbox() {
        assert_eq!(explain_ww("bash: /w/script.sh: Permission denied"), None);
        assert_eq!(explain_ww("cat: /etc/motd: Permission denied"), None);
        assert_eq!(explain_ww("all good"), None);
    }

    #[test]
    fn network_failures_are_reported_only_with_the_network_off() {
        let curl = "curl: (6) Could not resolve host: example.com";
        assert_eq!(
            explain_ww(curl).as_deref(),
            Some("network access denied by the sandbox (network off; --network on allows it)")
        );
        let on = policy(Mode::WorkspaceWrite, Network::On);
        assert_eq!(
            explain(curl, &on, Path::new("/t"), Path::new("/w"), None),
            None
        );
    }
}
