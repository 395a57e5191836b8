//! Paths the file tools will not write, whatever the model asks: system configuration (the
//! terminal with sudo is the honest route there) and the Hermes config and secrets, which a
//! prompt-injected model could otherwise rewrite to widen its own permissions.

use std::path::Path;

use super::paths::real;

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
pub fn write_refusal(given: &str, resolved: &Path, hermes_home: &Path) -> Option<String> {
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
    None
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
            write_refusal("/etc/hosts", Path::new("/etc/hosts"), &home).as_deref(),
            Some(
                "Refusing to write to sensitive system path: /etc/hosts\nUse the terminal tool with sudo if you need to modify system files."
            )
        );
        assert!(write_refusal("x", Path::new("/boot/grub/x"), &home).is_some());
        assert!(write_refusal("x", Path::new("/run/docker.sock"), &home).is_some());
        assert_eq!(write_refusal("x", Path::new("/etcetera/x"), &home), None);
        assert_eq!(write_refusal("x", Path::new("/tmp/x"), &home), None);
    }

    #[test]
    fn hermes_config_and_env_are_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = dir.path().to_path_buf();
        let config = home.join("config.yaml");
        assert_eq!(
            write_refusal("config.yaml", &config, &home),
            Some(format!(
                "Refusing to write to Hermes config file: {}",
                config.display()
            ))
        );
        assert!(write_refusal(".env", &home.join(".env"), &home).is_some());
        assert_eq!(write_refusal("x", &home.join("notes.md"), &home), None);
    }

    #[test]
    fn a_symlink_into_a_protected_file_is_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = dir.path().join("hh");
        std::fs::create_dir(&home).expect("mkdir");
        std::fs::write(home.join(".env"), "K=v\n").expect("write");
        let link = dir.path().join("innocent.txt");
        std::os::unix::fs::symlink(home.join(".env"), &link).expect("symlink");
        assert!(write_refusal("innocent.txt", &link, &home).is_some());
    }
}
