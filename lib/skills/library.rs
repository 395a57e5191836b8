//! The skill library of one Hermes home: the home, its config, the roots and the runtime
//! facts the filters need, loaded once; and [`Index`], everything a whole-library pass needs
//! (the walk, identities, provenance and the usage sidecar) read once.

use std::collections::BTreeSet;
use std::path::Path;

use super::catalog::Catalog;
use super::provenance::{Identities, Provenance};
use super::roots::Roots;
use super::runtime::Runtime;
use super::usage::{self, UsageMap};
use crate::home::{Config, ConfigError, Home};

/// A Hermes home's skills, with the settings that decide what is visible and writable.
#[derive(Debug, Clone)]
pub struct Library {
    pub home: Home,
    pub config: Config,
    pub roots: Roots,
    pub runtime: Runtime,
}

impl Library {
    /// Loads config.yaml and probes the runtime. A config that does not parse is an error:
    /// nothing is listed or written under settings the user did not choose.
    pub fn open(home: Home) -> Result<Library, ConfigError> {
        let config = Config::load(&home)?;
        let runtime = Runtime::detect(&config);
        Ok(Library::new(home, config, runtime))
    }

    pub fn new(home: Home, config: Config, runtime: Runtime) -> Library {
        let roots = Roots::new(&home, &config);
        Library {
            home,
            config,
            roots,
            runtime,
        }
    }

    /// The disabled names in scope (global ∪ the platform's list).
    pub fn disabled(&self) -> BTreeSet<String> {
        self.runtime.disabled(&self.config)
    }

    pub fn catalog(&self) -> Catalog {
        Catalog::scan(&self.roots)
    }

    /// `display_hermes_home()`: `~/…` when the home is under the user's home directory.
    pub fn display_home(&self) -> String {
        let root = self.home.root();
        if let Some(user) = std::env::var_os("HOME").filter(|h| !h.is_empty())
            && let Ok(rel) = root.strip_prefix(Path::new(&user))
        {
            return format!("~/{}", rel.display());
        }
        root.display().to_string()
    }

    /// Deletes `.skills_prompt_snapshot.json`, so the next system prompt (ours or Python's)
    /// is built from the tree as it now is. Called after every change to the skills tree.
    pub fn invalidate_prompt_snapshot(&self) {
        let _ = std::fs::remove_file(self.home.skills_prompt_snapshot());
    }

    /// The name of the profile this home is (`default`, or `<name>` for
    /// `<root>/profiles/<name>`).
    pub fn profile_name(&self) -> String {
        let root = self.home.root();
        match root.parent() {
            Some(parent) if parent.file_name().is_some_and(|n| n == "profiles") => root
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| "default".into()),
            _ => "default".into(),
        }
    }
}

/// Everything a pass over the whole library reads, read once: the walk, provenance, the
/// usage sidecar, and — on first use, since it reads every SKILL.md — each skill's identity.
#[derive(Debug, Clone)]
pub struct Index {
    pub catalog: Catalog,
    pub provenance: Provenance,
    pub usage: UsageMap,
    identities: std::cell::OnceCell<Identities>,
    roots: Roots,
}

impl Index {
    pub fn build(lib: &Library) -> Index {
        Index::with_usage(lib, usage::load(&lib.home))
    }

    /// The index over a sidecar the caller already read (under its lock, for a pass that
    /// writes it back once).
    pub fn with_usage(lib: &Library, usage: UsageMap) -> Index {
        Index {
            catalog: lib.catalog(),
            provenance: Provenance::load(&lib.home, &lib.config),
            usage,
            identities: std::cell::OnceCell::new(),
            roots: lib.roots.clone(),
        }
    }

    /// Skill directories by identity name (read on first use).
    pub fn identities(&self) -> &Identities {
        self.identities
            .get_or_init(|| Identities::build(&self.catalog, &self.roots))
    }

    /// The identities, for keeping them in step after a move.
    pub fn identities_mut(&mut self) -> &mut Identities {
        self.identities();
        match self.identities.get_mut() {
            Some(ids) => ids,
            None => unreachable!("initialised just above"),
        }
    }

    /// `is_curation_eligible(name, path)` against this index.
    pub fn is_curation_eligible(&self, lib: &Library, name: &str, path: Option<&Path>) -> bool {
        super::provenance::is_curation_eligible(
            name,
            path,
            &self.provenance,
            self.identities(),
            &lib.roots,
        )
    }
}
