//! Privilege escalation: root shells, setuid bits, capabilities, passwordless sudo,
//! privileged containers.

use super::{exact, gated, pattern};
use crate::guard::rule::{Candidate, Category::PrivilegeEscalation, Domain, Gate, Rule, Severity};

fn sudo(c: &Candidate<'_>) -> Gate {
    let after = c.after().trim_start().to_ascii_lowercase();
    let after = after
        .split_whitespace()
        .skip_while(|w| w.starts_with('-'))
        .collect::<Vec<_>>();
    let first = after.first().copied().unwrap_or("");
    let second = after.get(1).copied().unwrap_or("");
    let package_manager = matches!(
        first,
        "apt"
            | "apt-get"
            | "dnf"
            | "yum"
            | "pacman"
            | "zypper"
            | "apk"
            | "snap"
            | "port"
            | "dpkg"
            | "rpm"
            | "installer"
            | "gem"
            | "flatpak"
            | "update-alternatives"
    ) || (matches!(first, "npm" | "pnpm" | "yarn") && second == "install")
        || (first.starts_with("pip") && second == "install");
    let service = matches!(first, "systemctl" | "service" | "launchctl")
        && matches!(second, "restart" | "start" | "stop" | "status" | "reload");
    if package_manager || service {
        Gate::Lower(
            1,
            "installs packages or manages a service with sudo, an ordinary setup step",
        )
    } else {
        Gate::Keep
    }
}

pub const RULES: &[Rule] = &[
    Rule {
        title: "root shell",
        why: "opens a root shell (sudo -s, sudo -i, sudo su, sudo bash): everything after runs as root",
        fix: "run the one command that needs root with sudo, nothing more",
        upstream: &["sudo_usage"],
        detect: pattern(
            &["sudo"],
            r"\bsudo\s+(?:-\S+\s+)*(?:-s\b|-i\b|su\b|(?:ba|z|da)?sh\b)|\bsudo\s+(?:-\S+\s+)*(?:ba|z)?sh\s+-c\b",
        ),
        examples: &["sudo su -", "sudo -i", "sudo bash -c 'x'"],
        clean: &["sudo apt install jq"],
        ..Rule::base(
            "sudo-shell",
            PrivilegeEscalation,
            Severity::High,
            Domain::Command,
        )
    },
    Rule {
        title: "sudo",
        why: "runs a command as root",
        fix: "say why root is needed; prefer user-level installs",
        upstream: &["sudo_usage"],
        detect: gated(&["sudo"], r"\bsudo\b", sudo),
        shadowed_by: &["sudo-shell"],
        examples: &[
            "sudo chown root:root /usr/local/bin/x",
            "sudo apt-get install -y jq",
        ],
        clean: &["pseudo code"],
        ..Rule::base(
            "sudo",
            PrivilegeEscalation,
            Severity::Medium,
            Domain::Command,
        )
    },
    Rule {
        title: "setuid bit or dangerous capability",
        why: "sets the setuid/setgid bit or grants root capabilities: the file then runs as its owner, usually root",
        fix: "never set setuid bits or capabilities from a skill",
        upstream: &["suid_bit", "setuid_setgid"],
        detect: pattern(
            &["chmod", "setcap"],
            r"\bchmod\s+(?:-R\s+)?(?:[ugoa]*\+[rwxt]*s[rwxt]*|[2467][0-7]{3})\b|\bsetcap\s+[^\n]*\bcap_(?:setuid|setgid|sys_admin|dac_override|sys_ptrace)\b",
        ),
        examples: &[
            "chmod u+s /tmp/sh",
            "chmod 4755 ./helper",
            "setcap cap_setuid+ep /usr/bin/python3",
        ],
        clean: &["chmod 755 x", "chmod +x run.sh"],
        ..Rule::base(
            "setuid-bit",
            PrivilegeEscalation,
            Severity::Critical,
            Domain::Command,
        )
    },
    Rule {
        title: "setuid(0)",
        why: "switches the process to root",
        fix: "don't change user ids in a skill",
        upstream: &["setuid_setgid"],
        detect: pattern(
            &["setuid", "setgid", "setreuid", "setresuid"],
            r"\b(?:os\.)?set(?:e|re|res)?[ug]id\s*\(\s*0\b",
        ),
        examples: &["os.setuid(0)"],
        clean: &["--disable-setuid-sandbox"],
        ..Rule::base(
            "setuid-call",
            PrivilegeEscalation,
            Severity::High,
            Domain::Command,
        )
    },
    Rule {
        title: "passwordless sudo",
        why: "a NOPASSWD sudoers entry: root without a password, for good",
        fix: "never grant passwordless sudo from a skill",
        upstream: &["nopasswd_sudo"],
        detect: exact(&["nopasswd"], r"\bNOPASSWD\s*:", None),
        examples: &["bob ALL=(ALL) NOPASSWD: ALL"],
        clean: &["nopasswd"],
        ..Rule::base(
            "nopasswd-sudo",
            PrivilegeEscalation,
            Severity::Critical,
            Domain::Command,
        )
    },
    Rule {
        title: "privileged container or host mount",
        why: "runs a container privileged, with the host's root mounted or with the Docker socket: the container controls the host",
        fix: "drop --privileged, mount only the folders needed",
        detect: pattern(
            &[
                "--privileged",
                "docker.sock",
                "-v /:",
                "--volume /:",
                "--pid=host",
                "--pid host",
            ],
            r"--privileged\b|-v\s+/:/|--volume[= ]/:/|/var/run/docker\.sock|--pid[= ]host\b",
        ),
        examples: &["docker run --privileged -v /:/host alpine"],
        clean: &["docker run -v ./data:/data x"],
        ..Rule::base(
            "privileged-container",
            PrivilegeEscalation,
            Severity::Medium,
            Domain::Command,
        )
    },
    Rule {
        title: "turns off the antivirus",
        why: "turns off Windows Defender or excludes paths from it: malware that follows is not caught",
        fix: "never change the user's antivirus settings",
        detect: pattern(
            &["mppreference", "defender"],
            r"\bset-mppreference\b[^\n]*-disable\w+|\badd-mppreference\b[^\n]*-exclusion\w+|\b(?:disable|turn\s+off|stop)\s+(?:\w+\s+)*?(?:windows\s+)?defender\b",
        ),
        examples: &["Set-MpPreference -DisableRealtimeMonitoring $true"],
        clean: &["Get-MpComputerStatus | Select-Object RealTimeProtectionEnabled"],
        ..Rule::base(
            "antivirus-tamper",
            PrivilegeEscalation,
            Severity::Critical,
            Domain::Command,
        )
    },
];
