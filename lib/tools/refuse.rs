//! Paths the file tools will not write, whatever the model asks: system configuration (the
//! terminal with sudo is the honest route there) and the Hermes config and secrets, which a
//! prompt-injected model could otherwise rewrite to widen its own permissions. Another
//! profile's skills, plugins, cron jobs and memories are refused too unless the call says
//! `cross_profile: true`: they change an agent other than the one this session runs as.

use std::path::Path;

use super::paths::real;
use crate::home::Home;

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
