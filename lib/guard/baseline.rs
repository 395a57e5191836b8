//! Baselines: the findings a repository has accepted, so that CI fails only on new ones.
//! Entries are matched by skill, file, rule and a fingerprint of the line's text (not its
//! number), as a multiset: two identical findings need two entries.

use std::collections::HashMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::batch::SkillResult;
use crate::io::atomic::{FileMode, write_atomic};
use crate::io::{FileError, read_file};

/// A baseline file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum BaselineError {
    #[error(transparent)]
    File(#[from] FileError),
    #[error("{}: not a hermes-skill-scan baseline: {message}", path.display())]
    Format {
        path: std::path::PathBuf,
        message: String,
    },
}

/// One accepted finding or lint issue.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Entry {
    pub skill: String,
    pub file: String,
    pub rule: String,
    pub fingerprint: String,
}

/// The baseline file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Baseline {
    pub version: u32,
    pub generator: String,
    pub findings: Vec<Entry>,
    #[serde(default)]
    pub lint: Vec<Entry>,
}

impl Baseline {
    /// The baseline of a run's results (every finding and lint issue), sorted.
    pub fn of(results: &[SkillResult]) -> Baseline {
        let mut findings = Vec::new();
        let mut lint = Vec::new();
        for result in results {
            if let Some(report) = &result.report {
                findings.extend(report.findings.iter().map(|f| Entry {
                    skill: result.name.clone(),
                    file: f.file.clone(),
                    rule: f.rule.to_string(),
                    fingerprint: f.fingerprint(),
                }));
            }
            lint.extend(result.lint.iter().map(|i| Entry {
                skill: result.name.clone(),
                file: i.file.clone(),
                rule: i.rule.to_string(),
                fingerprint: lint_fingerprint(&i.message),
            }));
        }
        findings.sort();
        lint.sort();
        Baseline {
            version: 1,
            generator: "hermes-skill-scan".to_string(),
            findings,
            lint,
        }
    }

    pub fn load(path: &Path) -> Result<Baseline, BaselineError> {
        let bytes = read_file(path)?;
        let baseline: Baseline =
            serde_json::from_slice(&bytes).map_err(|e| BaselineError::Format {
                path: path.to_path_buf(),
                message: e.to_string(),
            })?;
        if baseline.version != 1 {
            return Err(BaselineError::Format {
                path: path.to_path_buf(),
                message: format!("version {} (this build reads version 1)", baseline.version),
            });
        }
        Ok(baseline)
    }

    pub fn write(&self, path: &Path) -> Result<(), FileError> {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        write_atomic(path, text.as_bytes(), FileMode::Umask)
    }

    /// Removes from `results` every finding and lint issue the baseline accepts, counts them
    /// per skill, and recomputes verdicts. Returns how many were removed.
    pub fn apply(&self, results: &mut [SkillResult]) -> usize {
        let mut findings = counts(&self.findings);
        let mut lint = counts(&self.lint);
        let mut removed = 0;
        for result in results.iter_mut() {
            let name = result.name.clone();
            let mut dropped = 0;
            if let Some(report) = &mut result.report {
                report.findings.retain(|f| {
                    let key = Entry {
                        skill: name.clone(),
                        file: f.file.clone(),
                        rule: f.rule.to_string(),
                        fingerprint: f.fingerprint(),
                    };
                    let keep = !take(&mut findings, &key);
                    dropped += usize::from(!keep);
                    keep
                });
                report.refresh_verdict();
            }
            result.lint.retain(|i| {
                let key = Entry {
                    skill: name.clone(),
                    file: i.file.clone(),
                    rule: i.rule.to_string(),
                    fingerprint: lint_fingerprint(&i.message),
                };
                let keep = !take(&mut lint, &key);
                dropped += usize::from(!keep);
                keep
            });
            result.baselined += dropped;
            removed += dropped;
        }
        removed
    }
}

fn counts(entries: &[Entry]) -> HashMap<&Entry, usize> {
    let mut map = HashMap::new();
    for entry in entries {
        *map.entry(entry).or_insert(0) += 1;
    }
    map
}

fn take(counts: &mut HashMap<&Entry, usize>, key: &Entry) -> bool {
    match counts.get_mut(key) {
        Some(n) if *n > 0 => {
            *n -= 1;
            true
        }
        _ => false,
    }
}

/// Lint messages carry no line numbers, so the message itself identifies an issue.
fn lint_fingerprint(message: &str) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in message
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .bytes()
    {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{hash:016x}")
}
