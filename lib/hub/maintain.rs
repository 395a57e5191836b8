//! Keeping installed hub skills honest: `check` (is the local copy what was installed, and
//! has upstream moved on), `update` (re-fetch, rescan, replace only what the policy allows;
//! a refused update keeps the old copy) and `audit` (rescan every installed skill with
//! today's rules).

use serde::Serialize;
use serde_json::Value;

use super::HubError;
use super::bundle;
use super::identifier::Identifier;
use super::install::{self, Decision, Hub, Options, Outcome};
use super::lock;
use crate::guard::{self, ScanOptions, SkillReport};

/// One installed skill as `check` sees it.
#[derive(Debug, Clone, Serialize)]
pub struct CheckRow {
    pub name: String,
    pub identifier: String,
    pub source: String,
    /// `up_to_date`, `update_available` or `unavailable`.
    pub status: &'static str,
    pub current_hash: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latest_hash: Option<String>,
    /// The files on disk no longer hash to the lock's `content_hash`.
    pub locally_modified: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

fn field(entry: &serde_json::Map<String, Value>, key: &str) -> String {
    entry
        .get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

/// The lock entries `name` selects (all when `None`); an unknown name is a refusal.
fn selected(hub: &Hub, name: Option<&str>) -> Result<lock::Entries, HubError> {
    let all = lock::installed(&hub.home);
    match name {
        None => Ok(all),
        Some(n) => {
            let picked: Vec<_> = all.into_iter().filter(|(k, _)| k == n).collect();
            if picked.is_empty() {
                Err(HubError::refused(format!(
                    "'{n}' is not a hub-installed skill (may be a builtin)"
                )))
            } else {
                Ok(picked)
            }
        }
    }
}

/// Compares each installed skill with its lock entry and with its source.
pub fn check(
    hub: &Hub,
    name: Option<&str>,
) -> Result<Vec<(CheckRow, Option<bundle::Bundle>)>, HubError> {
    let mut rows = Vec::new();
    for (name, entry) in selected(hub, name)? {
        let current = field(&entry, "content_hash");
        let local = lock::normalize_install_path(&field(&entry, "install_path"), &name)
            .and_then(|p| install::resolve_target(&hub.home.skills_dir(), &p, &name))
            .and_then(|dir| bundle::dir_digest(&dir))
            .map(|d| bundle::short_hash(&d));
        let locally_modified = local.as_ref().map_or(true, |h| *h != current);
        let identifier = field(&entry, "identifier");
        let fetched = Identifier::parse(&identifier).and_then(|id| {
            hub.sources
                .iter()
                .find(|s| s.serves(&id))
                .ok_or_else(|| {
                    HubError::NotFound(format!("no configured source serves {identifier}"))
                })
                .and_then(|s| s.fetch(&id))
        });
        let (status, latest, error, bundle) = match fetched {
            Ok(b) => {
                let latest = bundle::short_hash(&bundle::digest(
                    b.files.iter().map(|(r, x)| (r.as_str(), x.as_slice())),
                ));
                let status = if latest == current {
                    "up_to_date"
                } else {
                    "update_available"
                };
                (status, Some(latest), None, Some(b))
            }
            Err(e) => ("unavailable", None, Some(e.to_string()), None),
        };
        rows.push((
            CheckRow {
                name,
                source: field(&entry, "source"),
                identifier,
                status,
                current_hash: current,
                latest_hash: latest,
                locally_modified,
                error,
            },
            bundle,
        ));
    }
    Ok(rows)
}

/// What `update` did for one skill.
#[derive(Debug, Clone)]
pub struct UpdateRow {
    pub check: CheckRow,
    /// Set when a new version was scanned (installed or refused).
    pub outcome: Option<Outcome>,
}

impl UpdateRow {
    /// `up_to_date`, `unavailable`, `updated` or `refused`.
    pub fn status(&self) -> &'static str {
        match &self.outcome {
            Some(o) if o.decision == Decision::Installed => "updated",
            Some(_) => "refused",
            None => self.check.status,
        }
    }
}

/// Installs each available update through the same quarantine and policy as an install
/// (`--force` semantics, as Python's update: caution passes for community sources, a
/// dangerous verdict never does); a refused update leaves the installed copy untouched.
pub fn update(
    hub: &Hub,
    name: Option<&str>,
    now: jiff::Timestamp,
) -> Result<Vec<UpdateRow>, HubError> {
    let mut out = Vec::new();
    for (row, bundle) in check(hub, name)? {
        let outcome = match (&bundle, row.status) {
            (Some(b), "update_available") => Some(install::install_bundle(
                &hub.home,
                b,
                &Options {
                    category: None,
                    force: true,
                    yes: false,
                    replace: true,
                },
                now,
            )?),
            _ => None,
        };
        out.push(UpdateRow {
            check: row,
            outcome,
        });
    }
    Ok(out)
}

/// One installed skill as `audit` saw it: its scan, or why it could not be scanned.
pub struct AuditRow {
    pub name: String,
    pub identifier: String,
    pub scan: Result<SkillReport, HubError>,
}

/// Rescans installed skills at the trust level their lock entry records; a skill that is
/// missing or whose install path is unsafe is reported and the others are still scanned.
pub fn audit(hub: &Hub, name: Option<&str>) -> Result<Vec<AuditRow>, HubError> {
    let mut out = Vec::new();
    for (name, entry) in selected(hub, name)? {
        let trust = install::parse_trust(&field(&entry, "trust_level"));
        let scan = lock::normalize_install_path(&field(&entry, "install_path"), &name)
            .and_then(|p| install::resolve_target(&hub.home.skills_dir(), &p, &name))
            .and_then(|dir| {
                if dir.is_dir() {
                    Ok(guard::scan_skill(
                        &dir,
                        &ScanOptions {
                            trust,
                            ..ScanOptions::default()
                        },
                    ))
                } else {
                    Err(HubError::NotFound(format!("{} is missing", dir.display())))
                }
            });
        out.push(AuditRow {
            name,
            identifier: field(&entry, "identifier"),
            scan,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::guard::{Install, Trust, Verdict};
    use crate::home::Home;
    use crate::hub::install::tests::{caution_bundle, install_plainly};

    /// An audit rescans at the trust level the lock recorded, not at the default
    /// (community): a trusted skill with a caution verdict is still one to keep.
    #[test]
    fn an_audit_judges_each_skill_at_its_recorded_trust() {
        let Ok(dir) = tempfile::tempdir() else {
            panic!("temp dir")
        };
        let home = Home::at(dir.path());
        let installed = install_plainly(&home, &caution_bundle(Trust::Trusted));
        assert_eq!(
            installed.ok().map(|o| o.decision),
            Some(Decision::Installed)
        );
        let Ok(config) = crate::hub::config::HubConfig::load(&home) else {
            panic!("hub config")
        };
        let hub = Hub {
            home,
            config,
            sources: Vec::new(),
        };
        let Ok(rows) = audit(&hub, None) else {
            panic!("audit")
        };
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].name, "netrc-reader");
        assert_eq!(rows[0].identifier, "acme/skills/netrc-reader");
        let Ok(report) = &rows[0].scan else {
            panic!("scanned")
        };
        assert_eq!(report.trust, Trust::Trusted);
        assert_eq!(report.install_verdict, Verdict::Caution);
        assert_eq!(report.install(), Install::Allow);
    }
}
