//! Other profiles' stores: `session_id="work/<id>"` or `profile="work"` reads
//! `<root>/profiles/work/state.db` (reference `recall` §4.2), and a read of an id that is not
//! in the current store looks through every profile.

use std::path::PathBuf;
use std::sync::LazyLock;

use crate::home::Home;
use crate::pytext::repr;

static PROFILE_ID: LazyLock<regex::Regex> = LazyLock::new(|| {
    regex::Regex::new(r"^[a-z0-9][a-z0-9_-]{0,63}$").unwrap_or_else(|_| unreachable!("valid"))
});

const RESERVED: &[&str] = &["hermes", "default", "test", "tmp", "root", "sudo"];

/// `normalize_profile_name`: trimmed, `default` in any case, otherwise lower-cased.
pub fn normalize(name: &str) -> Result<String, String> {
    let stripped = crate::pytext::strip(name);
    if stripped.is_empty() {
        return Err("profile name cannot be empty".into());
    }
    if stripped.to_lowercase() == "default" {
        return Ok("default".into());
    }
    Ok(stripped.to_lowercase())
}

/// The home of profile `name`, or the error text Python's profile helpers raise.
pub fn resolve(home: &Home, name: &str) -> Result<PathBuf, String> {
    let canon = normalize(name)?;
    if canon != "default" {
        if !PROFILE_ID.is_match(&canon) {
            return Err(format!(
                "Invalid profile name {}. Must match [a-z0-9][a-z0-9_-]{{0,63}}",
                repr(&canon)
            ));
        }
        if RESERVED.contains(&canon.as_str()) {
            return Err(format!(
                "Profile name {} is reserved — it collides with either the Hermes installation \
                 itself or a common system binary.  Pick a different name.",
                repr(&canon)
            ));
        }
    }
    let dir = home.profile_dir(&canon);
    if canon != "default" && !dir.is_dir() {
        return Err(format!("profile '{canon}' does not exist"));
    }
    Ok(dir)
}

/// Every profile whose store a read may look in, default first, then the named profiles in
/// name order; each store once.
pub fn every_store(home: &Home) -> Vec<(String, PathBuf)> {
    let mut targets = vec![("default".to_string(), home.profile_dir("default"))];
    let root = home.profiles_root().join("profiles");
    if let Ok(entries) = std::fs::read_dir(&root) {
        let mut named: Vec<(String, PathBuf)> = entries
            .filter_map(Result::ok)
            .filter(|e| e.path().is_dir())
            .filter_map(|e| {
                let name = e.file_name().to_str()?.to_string();
                (name != "default" && PROFILE_ID.is_match(&name)).then(|| (name, e.path()))
            })
            .collect();
        named.sort();
        targets.extend(named);
    }
    let mut seen = std::collections::HashSet::new();
    targets
        .into_iter()
        .map(|(name, dir)| (name, dir.join("state.db")))
        .filter(|(_, db)| db.exists() && seen.insert(db.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_normalised_and_validated_as_python_does() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(dir.path().join("profiles/work")).expect("mkdir");
        let home = Home::at(dir.path().join("profiles/work"));
        assert_eq!(
            resolve(&home, " Work "),
            Ok(dir.path().join("profiles/work"))
        );
        assert_eq!(resolve(&home, "DEFAULT"), Ok(dir.path().to_path_buf()));
        assert_eq!(
            resolve(&home, "nosuch"),
            Err("profile 'nosuch' does not exist".into())
        );
        assert_eq!(
            resolve(&home, "Bad!"),
            Err("Invalid profile name 'bad!'. Must match [a-z0-9][a-z0-9_-]{0,63}".into())
        );
        assert!(
            resolve(&home, "test")
                .is_err_and(|e| e.starts_with("Profile name 'test' is reserved — it collides"))
        );
    }
}
