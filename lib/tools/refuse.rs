//! Paths the file tools will not write, whatever the model asks: system configuration (the
//! terminal with sudo is the honest route there) and the Hermes config and secrets, which a
//! prompt-injected model could otherwise rewrite to widen its own permissions. Another
//! profile's skills, plugins, cron jobs and memories are refused too unless the call says
//! `cross_profile: true`: they change an agent other than the one this session runs as.

use std::path::Path;

use super::paths::real;
use crate::home::Home;

/// The refusal of the workspace's sandbox for the file tools, which run in our own process:
/// a write where the sandbox would not let a command write, or any access to a credential,
/// is refused as the terminal's would be, so `write_file ~/.bashrc` is no way around the
/// sandbox. The path as typed, its real location and the policy's paths' real locations
/// are all compared (a root or a secret reached through a symlink).
pub fn sandbox_refusal(
    sandbox: Option<&crate::sandbox::Sandbox>,
    given: &str,
    resolved: &Path,
    write: bool,
) -> Option<String> {
    let sandbox = sandbox?;
    let policy = sandbox.policy();
    let real_policy = policy.resolved();
    let real_path = real(resolved);
    if policy.is_unreadable(resolved) || real_policy.is_unreadable(&real_path) {
        return Some(format!(
            "Refusing to {} {given}: credentials are out of the agent's reach (sandbox)",
            if write { "write to" } else { "read" }
        ));
    }
    let writable = policy.may_write(resolved, sandbox.temp_dir())
        && real_policy.may_write(&real_path, &real(sandbox.temp_dir()));
    (write && !writable).then(|| {
        format!(
            "Refusing to write to {given}: outside what the sandbox lets the agent write ({}); memory and skills change through the memory and skill_manage tools",
            policy.mode.as_str()
        )
    })
}

/// What a profile keeps that another profile's session should not rewrite by accident.
const PROFILE_AREAS: [&str; 4] = ["skills", "plugins", "cron", "memories"];

/// Directories under which nothing is written.
const SENSITIVE_PREFIXES: [&str; 5] = [
    "/etc/",
    "/boot/",
    "/usr/lib/systemd/",
    "/private/etc/",
    "/private/var/",
];

/// Single files that are never written.
const SENSITIVE_FILES: [&str; 2] = ["/var/run/docker.sock", "/run/docker.sock"];

/// The refusal text for writing `resolved` (typed by the model as `given`), or `None` when
/// the write may go ahead. Both the path as typed and its real location are checked, so a
/// symlink cannot smuggle a write into `/etc`.
pub fn write_refusal(
    given: &str,
    resolved: &Path,
    hermes_home: &Path,
    cross_profile: bool,
) -> Option<String> {
    let real_path = real(resolved);
    if [resolved, real_path.as_path()]
        .iter()
        .any(|p| is_sensitive(p))
    {
        return Some(format!(
            "Refusing to write to sensitive system path: {given}\nUse the terminal tool with sudo if you need to modify system files."
        ));
    }
    let home = real(hermes_home);
    for name in ["config.yaml", ".env"] {
        let protected = home.join(name);
        if real_path == protected || resolved == hermes_home.join(name) {
            return Some(format!(
                "Refusing to write to Hermes config file: {}",
                resolved.display()
            ));
        }
    }
    if cross_profile {
        return None;
    }
    other_profile(&real_path, hermes_home).map(|(profile, area)| {
        format!(
            "Refusing to write to {given}: it is in the {area} of Hermes profile '{profile}', not of the profile this session runs under. Pass cross_profile=true only if the user explicitly asked to edit that profile."
        )
    })
}

/// The profile name and area when `path` lies in a profile area of a profile other than
/// `hermes_home`'s.
fn other_profile(path: &Path, hermes_home: &Path) -> Option<(String, &'static str)> {
    let root = real(&Home::at(hermes_home).profiles_root());
    let rel = path.strip_prefix(&root).ok()?;
    let mut parts = rel.components().map(|c| c.as_os_str().to_string_lossy());
    let first = parts.next()?;
    let (name, owner, area) = if first == "profiles" {
        let name = parts.next()?.into_owned();
        let owner = root.join("profiles").join(&name);
        (name, owner, parts.next()?)
    } else {
        ("default".to_string(), root.clone(), first)
    };
    let area = PROFILE_AREAS.iter().find(|a| **a == area)?;
    (owner != real(hermes_home)).then_some((name, area))
}

fn is_sensitive(path: &Path) -> bool {
    let Some(text) = path.to_str() else {
        return false;
    };
    SENSITIVE_FILES.contains(&text)
        || SENSITIVE_PREFIXES
            .iter()
            .any(|prefix| text.starts_with(prefix) || text == prefix.trim_end_matches('/'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn system_paths_are_refused_with_the_upstream_text() {
        let home = PathBuf::from("/nonexistent-hh");
        assert_eq!(
            write_refusal("/etc/hosts", Path::new("/etc/hosts"), &home, true).as_deref(),
            Some(
                "Refusing to write to sensitive system path: /etc/hosts\nUse the terminal tool with sudo if you need to modify system files."
            )
        );
        assert!(write_refusal("x", Path::new("/boot/grub/x"), &home, false).is_some());
        assert!(write_refusal("x", Path::new("/run/docker.sock"), &home, false).is_some());
        assert_eq!(
            write_refusal("x", Path::new("/etcetera/x"), &home, false),
            None
        );
        assert_eq!(write_refusal("x", Path::new("/tmp/x"), &home, false), None);
    }

    #[test]
    fn hermes_config_and_env_are_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = dir.path().to_path_buf();
        let config = home.join("config.yaml");
        assert_eq!(
            write_refusal("config.yaml", &config, &home, false),
            Some(format!(
                "Refusing to write to Hermes config file: {}",
                config.display()
            ))
        );
        assert!(write_refusal(".env", &home.join(".env"), &home, false).is_some());
        assert_eq!(
            write_refusal("x", &home.join("notes.md"), &home, false),
            None
        );
    }

    #[test]
    fn a_symlink_into_a_protected_file_is_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = dir.path().join("hh");
        std::fs::create_dir(&home).expect("mkdir");
        std::fs::write(home.join(".env"), "K=v\n").expect("write");
        let link = dir.path().join("innocent.txt");
        std::os::unix::fs::symlink(home.join(".env"), &link).expect("symlink");
        assert!(write_refusal("innocent.txt", &link, &home, false).is_some());
    }

    #[test]
    fn another_profiles_areas_need_cross_profile() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("canon");
        let work = root.join("profiles/work");
        std::fs::create_dir_all(work.join("skills")).expect("mkdir");
        std::fs::create_dir_all(root.join("skills")).expect("mkdir");
        let theirs = root.join("skills/x/SKILL.md");
        assert_eq!(
            write_refusal("../../skills/x/SKILL.md", &theirs, &work, false),
            Some("Refusing to write to ../../skills/x/SKILL.md: it is in the skills of Hermes profile 'default', not of the profile this session runs under. Pass cross_profile=true only if the user explicitly asked to edit that profile.".to_string())
        );
        assert_eq!(write_refusal("x", &theirs, &work, true), None);
        assert_eq!(
            write_refusal("x", &work.join("skills/y/SKILL.md"), &work, false),
            None
        );
        assert_eq!(
            write_refusal("x", &root.join("notes.md"), &work, false),
            None
        );
        let other = root.join("profiles/home/memories/MEMORY.md");
        assert!(
            write_refusal("x", &other, &root, false)
                .is_some_and(|t| t.contains("the memories of Hermes profile 'home'"))
        );
    }
}

#[cfg(test)]
mod sandbox_tests {
    use std::path::PathBuf;
    use std::sync::Arc;

    use serde_json::json;

    use crate::sandbox::{Mode, Network, Places, Policy, Sandbox};
    use crate::tools::Workspace;
    use crate::tools::testing::map;

    /// A workspace under a sandbox whose user home is a temp folder with a key in it.
    fn contained() -> Option<(tempfile::TempDir, Workspace, PathBuf)> {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = dir.path().join("home");
        let work = dir.path().join("work");
        for d in [
            home.join(".ssh"),
            home.join(".hermes/memories"),
            work.join(".git/hooks"),
        ] {
            std::fs::create_dir_all(d).expect("mkdir");
        }
        std::fs::write(home.join(".ssh/id_ed25519"), "KEY").expect("write");
        let policy = Policy::for_session(
            Mode::WorkspaceWrite,
            Network::Off,
            &Places {
                workspace: &work,
                hermes_home: &home.join(".hermes"),
                user_home: Some(&home),
            },
        );
        let sandbox = match Sandbox::new(policy) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("skipped: {e}");
                return None;
            }
        };
        let mut ws = Workspace::new(work, home.join(".hermes"));
        ws.set_sandbox(Arc::new(sandbox));
        Some((dir, ws, home))
    }

    fn error(value: &serde_json::Value) -> String {
        value["error"].as_str().unwrap_or("").to_string()
    }

    #[test]
    fn the_file_tools_are_held_to_the_sandbox_too() {
        let Some((_dir, mut ws, home)) = contained() else {
            return;
        };
        let write = |ws: &mut Workspace, path: String| {
            crate::tools::write_file(ws, &map(json!({"path": path, "content": "x\n"})))
        };
        let out = write(&mut ws, "notes.md".into());
        assert_eq!(out["error"], serde_json::Value::Null, "{out}");
        let bashrc = home.join(".bashrc").display().to_string();
        assert_eq!(
            error(&write(&mut ws, bashrc.clone())),
            format!(
                "Refusing to write to {bashrc}: outside what the sandbox lets the agent write (workspace-write); memory and skills change through the memory and skill_manage tools"
            )
        );
        assert!(!home.join(".bashrc").exists());
        assert!(error(&write(&mut ws, ".git/hooks/pre-commit".into())).starts_with("Refusing"));
        let memory = home
            .join(".hermes/memories/MEMORY.md")
            .display()
            .to_string();
        assert!(error(&write(&mut ws, memory)).starts_with("Refusing"));
        let key = home.join(".ssh/id_ed25519").display().to_string();
        let read = crate::tools::read_file(&mut ws, &map(json!({"path": key})));
        assert_eq!(
            read["error"],
            json!(format!(
                "Refusing to read {key}: credentials are out of the agent's reach (sandbox)"
            ))
        );
        assert!(!read.to_string().contains("KEY\""));
        let ssh = home.join(".ssh").display().to_string();
        let search =
            crate::tools::search_files(&mut ws, &map(json!({"pattern": "KEY", "path": ssh})));
        assert!(error(&search).starts_with("Refusing to read"), "{search}");
    }
}
