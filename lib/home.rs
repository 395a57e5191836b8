//! Where everything lives: HERMES_HOME resolution and the path of every file the toolchain
//! touches, named in one place so no module spells a path on its own.

pub mod config;

use std::path::{Component, Path, PathBuf};

pub use config::{Config, ConfigError, CuratorConfig};

/// The environment variable naming the Hermes home.
pub const HOME_VAR: &str = "HERMES_HOME";

/// No usable home: none could be found, or the one named cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum NoHome {
    /// No flag, no `HERMES_HOME`, and no `$HOME` to find `~/.hermes` in.
    #[error(
        "cannot find the Hermes home: pass --home DIR or set HERMES_HOME (no $HOME to find ~/.hermes)"
    )]
    Unset,
    /// `~user/…`, or `~` with no `$HOME`: a shell would have expanded it; we cannot.
    #[error(
        "{from} is {value:?}: a `~` that is not followed by `/` (or with no $HOME) cannot be expanded; give the full path"
    )]
    Tilde { from: &'static str, value: String },
    /// An explicitly named home that does not exist, for a command that only reads.
    #[error("no Hermes home at {} ({from})", path.display())]
    Missing { path: PathBuf, from: &'static str },
    /// An explicitly named home that does not exist, in a folder that does not exist either:
    /// too likely a typo to create.
    #[error(
        "no Hermes home at {} ({from}), and no folder {} to create it in",
        path.display(),
        path.parent().unwrap_or(Path::new("")).display()
    )]
    NoParent { path: PathBuf, from: &'static str },
}

impl NoHome {
    /// What the person can do about it.
    pub fn hint(&self) -> Option<String> {
        match self {
            NoHome::Missing { .. } => Some(
                "check the path; a command that writes (e.g. `hermes-index init`, `hermes-skills create`) creates the home".into(),
            ),
            NoHome::NoParent { .. } => Some(
                "check the path; a home is created only in a folder that exists (mkdir -p it first to mean it)".into(),
            ),
            _ => None,
        }
    }
}

/// Where a home's path came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HomeSource {
    Flag,
    Env,
    Default,
}

impl HomeSource {
    fn name(self) -> &'static str {
        match self {
            HomeSource::Flag => "--home",
            HomeSource::Env => HOME_VAR,
            HomeSource::Default => "~/.hermes",
        }
    }
}

/// `~` and `~/…` at the start of a path given in a variable or a quoted flag, as the shell
/// would have expanded it unquoted (Python Hermes does not expand it, and creates a folder
/// named `~`).
fn expand_tilde(value: &Path, from: &'static str) -> Result<PathBuf, NoHome> {
    let text = value.to_string_lossy();
    if !text.starts_with('~') {
        return Ok(value.to_path_buf());
    }
    let home = std::env::var_os("HOME").filter(|h| !h.is_empty());
    let tilde = || NoHome::Tilde {
        from,
        value: text.to_string(),
    };
    match (text.as_ref(), text.strip_prefix("~/"), home) {
        ("~", _, Some(home)) => Ok(PathBuf::from(home)),
        (_, Some(rest), Some(home)) => Ok(PathBuf::from(home).join(rest)),
        _ => Err(tilde()),
    }
}

/// A Hermes home directory (`~/.hermes` or a profile under it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Home {
    root: PathBuf,
}

impl Home {
    /// `--home` wins, then `HERMES_HOME` (stripped; empty means unset), then `~/.hermes`.
    pub fn resolve(flag: Option<&Path>) -> Result<Home, NoHome> {
        Home::resolve_with_source(flag).map(|(home, _)| home)
    }

    /// [`Home::resolve`], and where the path came from. A leading `~` is expanded.
    pub fn resolve_with_source(flag: Option<&Path>) -> Result<(Home, HomeSource), NoHome> {
        if let Some(dir) = flag {
            let dir = expand_tilde(dir, HomeSource::Flag.name())?;
            return Ok((Home::at(dir), HomeSource::Flag));
        }
        if let Some(value) = std::env::var_os(HOME_VAR) {
            let text = value.to_string_lossy();
            let trimmed = text.trim();
            if !trimmed.is_empty() {
                let dir = expand_tilde(Path::new(trimmed), HomeSource::Env.name())?;
                return Ok((Home::at(dir), HomeSource::Env));
            }
        }
        std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(|h| {
                (
                    Home::at(PathBuf::from(h).join(".hermes")),
                    HomeSource::Default,
                )
            })
            .ok_or(NoHome::Unset)
    }

    /// The home for a command that only reads: one named by `--home` or `HERMES_HOME` must
    /// exist (a typo would otherwise read as an empty home). The default `~/.hermes` may be
    /// missing: a new user simply has nothing yet.
    pub fn resolve_existing(flag: Option<&Path>) -> Result<Home, NoHome> {
        let (home, source) = Home::resolve_with_source(flag)?;
        if source != HomeSource::Default && !home.root.is_dir() {
            return Err(NoHome::Missing {
                path: home.root,
                from: source.name(),
            });
        }
        Ok(home)
    }

    /// The home for a command that creates it when missing, and whether it existed (so the
    /// command can say it created one). One named by `--home` or `HERMES_HOME` is created
    /// only inside a folder that exists: a missing parent is a typo more often than a wish.
    pub fn resolve_for_write(flag: Option<&Path>) -> Result<(Home, bool), NoHome> {
        let (home, source) = Home::resolve_with_source(flag)?;
        let existed = home.root.is_dir();
        let parent = home
            .root
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        if !existed && source != HomeSource::Default && !parent.is_dir() {
            return Err(NoHome::NoParent {
                path: home.root,
                from: source.name(),
            });
        }
        Ok((home, existed))
    }

    /// A home at `root`, taken as given (no `~` expansion, no canonicalisation, like Python).
    pub fn at(root: impl Into<PathBuf>) -> Home {
        Home { root: root.into() }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Loads `config.yaml` merged over the defaults; a missing file gives the defaults.
    pub fn load_config(&self) -> Result<Config, ConfigError> {
        Config::load(self)
    }

    // ── files at the top of the home ────────────────────────────────────────────────────────

    pub fn config_yaml(&self) -> PathBuf {
        self.root.join("config.yaml")
    }

    /// `KEY=value` secrets, read to decide whether a skill's required variables are set.
    pub fn env_file(&self) -> PathBuf {
        self.root.join(".env")
    }

    /// The session store (SQLite).
    pub fn state_db(&self) -> PathBuf {
        self.root.join("state.db")
    }

    // ── profiles ─────────────────────────────────────────────────────────────────────────────

    /// The root that holds the named profiles (Python's `get_default_hermes_root`): `~/.hermes`
    /// when this home is inside it, the grandparent when this home is `<root>/profiles/<name>`,
    /// else this home itself.
    pub fn profiles_root(&self) -> PathBuf {
        if let Some(native) = std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(|h| PathBuf::from(h).join(".hermes"))
            && resolve_lenient(&self.root).starts_with(resolve_lenient(&native))
        {
            return native;
        }
        match (
            self.root.parent(),
            self.root.parent().and_then(Path::file_name),
        ) {
            (Some(parent), Some(name)) if name == "profiles" => parent
                .parent()
                .map_or_else(|| self.root.clone(), Path::to_path_buf),
            _ => self.root.clone(),
        }
    }

    /// The home of profile `name` (already normalised): `default` is [`Home::profiles_root`],
    /// any other lives in its `profiles/` directory.
    pub fn profile_dir(&self, name: &str) -> PathBuf {
        if name == "default" {
            self.profiles_root()
        } else {
            self.profiles_root().join("profiles").join(name)
        }
    }

    /// The cached system-prompt skill index; deleted whenever a skill changes.
    pub fn skills_prompt_snapshot(&self) -> PathBuf {
        self.root.join(".skills_prompt_snapshot.json")
    }

    /// Opt-out marker: bundled skills are not seeded when it exists.
    pub fn no_bundled_skills_marker(&self) -> PathBuf {
        self.root.join(".no-bundled-skills")
    }

    pub fn skill_bundles_dir(&self) -> PathBuf {
        self.root.join("skill-bundles")
    }

    /// Staged writes awaiting approval: `pending/memory` or `pending/skills`.
    pub fn pending_dir(&self, kind: &str) -> PathBuf {
        self.root.join("pending").join(kind)
    }

    // ── memory ───────────────────────────────────────────────────────────────────────────────

    pub fn memories_dir(&self) -> PathBuf {
        self.root.join("memories")
    }

    /// The agent's notes about its environment.
    pub fn memory_md(&self) -> PathBuf {
        self.memories_dir().join("MEMORY.md")
    }

    /// What the agent knows about its user.
    pub fn user_md(&self) -> PathBuf {
        self.memories_dir().join("USER.md")
    }

    // ── skills ───────────────────────────────────────────────────────────────────────────────

    /// The local skills root.
    pub fn skills_dir(&self) -> PathBuf {
        self.root.join("skills")
    }

    /// Per-skill telemetry and lifecycle sidecar.
    pub fn usage_json(&self) -> PathBuf {
        self.skills_dir().join(".usage.json")
    }

    /// The lock that serialises read-modify-write of `.usage.json`.
    pub fn usage_lock(&self) -> PathBuf {
        self.skills_dir().join(".usage.json.lock")
    }

    pub fn bundled_manifest(&self) -> PathBuf {
        self.skills_dir().join(".bundled_manifest")
    }

    pub fn curator_state(&self) -> PathBuf {
        self.skills_dir().join(".curator_state")
    }

    pub fn curator_suppressed(&self) -> PathBuf {
        self.skills_dir().join(".curator_suppressed")
    }

    pub fn curator_backups_dir(&self) -> PathBuf {
        self.skills_dir().join(".curator_backups")
    }

    /// Archived (recoverable) skills, flat.
    pub fn archive_dir(&self) -> PathBuf {
        self.skills_dir().join(".archive")
    }

    pub fn hub_dir(&self) -> PathBuf {
        self.skills_dir().join(".hub")
    }

    pub fn hub_lock_json(&self) -> PathBuf {
        self.hub_dir().join("lock.json")
    }

    pub fn hub_audit_log(&self) -> PathBuf {
        self.hub_dir().join("audit.log")
    }

    pub fn hub_taps_json(&self) -> PathBuf {
        self.hub_dir().join("taps.json")
    }

    pub fn hub_quarantine_dir(&self) -> PathBuf {
        self.hub_dir().join("quarantine")
    }

    pub fn hub_scan_cache_dir(&self) -> PathBuf {
        self.hub_dir().join("scan-cache")
    }

    pub fn hub_index_cache_dir(&self) -> PathBuf {
        self.hub_dir().join("index-cache")
    }

    // ── curator reports and cron ─────────────────────────────────────────────────────────────

    /// `logs/review.log`: one line per review `hermes-review` ran, and how it ended.
    pub fn review_log(&self) -> PathBuf {
        self.root.join("logs").join("review.log")
    }

    /// `logs/curator`, holding one `<YYYYMMDD-HHMMSS>[-N]/` directory per run.
    pub fn curator_logs_dir(&self) -> PathBuf {
        self.root.join("logs").join("curator")
    }

    pub fn cron_jobs(&self) -> PathBuf {
        self.root.join("cron").join("jobs.json")
    }

    /// The lock Hermes's cron module takes around `jobs.json` (not `jobs.json.lock`).
    pub fn cron_lock(&self) -> PathBuf {
        self.root.join("cron").join(".jobs.lock")
    }
}

/// Python's `Path.resolve()` (non-strict): absolute, `..` folded, symlinks resolved for the
/// part of the path that exists.
pub fn resolve_lenient(path: &Path) -> PathBuf {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(path)
    };
    let mut existing = absolute.clone();
    let mut rest: Vec<PathBuf> = Vec::new();
    loop {
        if let Ok(canonical) = existing.canonicalize() {
            let mut out = canonical;
            for part in rest.iter().rev() {
                push_normalized(&mut out, part);
            }
            return out;
        }
        match (
            existing.file_name().map(|n| n.to_os_string()),
            existing.parent(),
        ) {
            (Some(name), Some(parent)) => {
                rest.push(PathBuf::from(name));
                existing = parent.to_path_buf();
            }
            _ => break,
        }
    }
    let mut out = PathBuf::from("/");
    for component in absolute.components() {
        push_normalized(&mut out, Path::new(component.as_os_str()));
    }
    out
}

fn push_normalized(out: &mut PathBuf, part: &Path) {
    for component in part.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(name) => out.push(name),
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
}

/// Python's `os.path.expandvars`: `$NAME` and `${NAME}` replaced when set, left as written
/// otherwise.
pub fn expand_vars(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'$' {
            let (name, end) = if bytes.get(i + 1) == Some(&b'{') {
                match text[i + 2..].find('}') {
                    Some(close) => (&text[i + 2..i + 2 + close], i + 3 + close),
                    None => ("", i + 1),
                }
            } else {
                let len = text[i + 1..]
                    .bytes()
                    .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
                    .count();
                (&text[i + 1..i + 1 + len], i + 1 + len)
            };
            if !name.is_empty()
                && let Some(value) = std::env::var_os(name)
            {
                out.push_str(&value.to_string_lossy());
                i = end;
                continue;
            }
            out.push('$');
            i += 1;
            continue;
        }
        let next = text[i..].find('$').map_or(text.len(), |n| i + n);
        out.push_str(&text[i..next]);
        i = next;
    }
    out
}

/// Python's `os.path.expanduser` for `~` and `~/…` (other users' homes are left as written).
pub fn expand_user(text: &str) -> String {
    if (text == "~" || text.starts_with("~/"))
        && let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty())
    {
        return format!(
            "{}{}",
            home.to_string_lossy().trim_end_matches('/'),
            &text[1..]
        );
    }
    text.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flag_beats_everything() {
        let home = Home::resolve(Some(Path::new("/tmp/h"))).expect("home");
        assert_eq!(home.root(), Path::new("/tmp/h"));
        assert_eq!(
            home.usage_json(),
            PathBuf::from("/tmp/h/skills/.usage.json")
        );
        assert_eq!(home.cron_lock(), PathBuf::from("/tmp/h/cron/.jobs.lock"));
    }

    #[test]
    fn a_home_to_write_is_created_only_inside_a_folder_that_exists() {
        let dir = tempfile::tempdir().expect("tempdir");
        let existing = dir.path().join("h");
        std::fs::create_dir(&existing).expect("dir");
        let (home, existed) = Home::resolve_for_write(Some(&existing)).expect("home");
        assert_eq!((home.root(), existed), (existing.as_path(), true));
        let new = dir.path().join("new");
        let (home, existed) = Home::resolve_for_write(Some(&new)).expect("home");
        assert_eq!((home.root(), existed), (new.as_path(), false));
        let typo = dir.path().join("hermse/home");
        let Err(e) = Home::resolve_for_write(Some(&typo)) else {
            panic!("a missing parent is refused")
        };
        assert_eq!(
            e.to_string(),
            format!(
                "no Hermes home at {} (--home), and no folder {} to create it in",
                typo.display(),
                dir.path().join("hermse").display()
            )
        );
        assert_eq!(
            e.hint().as_deref(),
            Some(
                "check the path; a home is created only in a folder that exists (mkdir -p it first to mean it)"
            )
        );
        // A bare relative name is created in the current folder.
        assert!(Home::resolve_for_write(Some(Path::new("relative-home"))).is_ok());
    }

    #[test]
    fn expandvars_like_python() {
        // SAFETY of the test: the variable name is unique to this test.
        unsafe { std::env::set_var("HERMES_LOOP_TEST_XV", "val") };
        assert_eq!(expand_vars("a/$HERMES_LOOP_TEST_XV/b"), "a/val/b");
        assert_eq!(expand_vars("${HERMES_LOOP_TEST_XV}x"), "valx");
        assert_eq!(expand_vars("$NOPE_HERMES_UNSET/x"), "$NOPE_HERMES_UNSET/x");
        assert_eq!(expand_vars("${unclosed"), "${unclosed");
        assert_eq!(expand_vars("cost $5"), "cost $5");
    }

    #[test]
    fn lenient_resolve_folds_dotdot_past_missing_parts() {
        let dir = tempfile::tempdir().expect("tempdir");
        let real = dir.path().canonicalize().expect("canon");
        let got = resolve_lenient(&dir.path().join("missing/../other/x"));
        assert_eq!(got, real.join("other/x"));
    }
}
