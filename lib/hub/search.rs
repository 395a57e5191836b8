//! Searching every source at once. Each source runs on a thread of its own and has until the
//! deadline to answer; what answered in time is ranked and returned together with one report
//! per source (`ok`, `error` with its message, or `timeout`), so a dead source degrades the
//! answer and is named in it, never hides in it and never fails it.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde::Serialize;

use super::HubError;
use super::config::HubConfig;
use super::github::GitHubSource;
use super::net::Net;
use super::source::{SkillMeta, Source};
use super::tap::TapSource;
use super::url::UrlSource;
use super::well_known::WellKnownSource;
use crate::guard::Trust;

/// Candidates asked of each source, whatever the final limit.
const PER_SOURCE: usize = 50;

/// The sources in router order (taps, well-known sites, GitHub, plain URLs), keeping those
/// `filter` names: `all`, a kind (`tap`, `well-known`, `github`, `url`) or one source's name.
pub fn sources(
    config: &HubConfig,
    net: &Net,
    filter: &str,
) -> Result<Vec<Arc<dyn Source>>, HubError> {
    let mut all: Vec<(&'static str, Arc<dyn Source>)> = Vec::new();
    for tap in &config.taps {
        all.push(("tap", Arc::new(TapSource { tap: tap.clone() })));
    }
    for site in &config.well_known {
        all.push((
            "well-known",
            Arc::new(WellKnownSource::for_site(site, net.clone())),
        ));
    }
    if config.github {
        all.push((
            "github",
            Arc::new(GitHubSource {
                api: config.github_api.clone(),
                token: config.github_token.clone(),
                taps: config.github_taps.clone(),
                net: net.clone(),
            }),
        ));
    }
    all.push((
        "well-known",
        Arc::new(WellKnownSource {
            base: None,
            net: net.clone(),
        }),
    ));
    all.push(("url", Arc::new(UrlSource { net: net.clone() })));
    let kept: Vec<Arc<dyn Source>> = all
        .into_iter()
        .filter(|(kind, s)| filter == "all" || filter == *kind || s.name() == filter)
        .map(|(_, s)| s)
        .collect();
    if kept.is_empty() {
        return Err(HubError::invalid(format!(
            "no source matches --source {filter:?} (all, tap, well-known, github, url, or a source name)"
        )));
    }
    Ok(kept)
}

/// How one source did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SourceReport {
    pub source: String,
    /// `ok`, `error` or `timeout`.
    pub status: &'static str,
    pub results: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

#[derive(Debug, Clone, Default)]
pub struct Outcome {
    pub results: Vec<SkillMeta>,
    pub sources: Vec<SourceReport>,
}

impl Outcome {
    pub fn failed(&self) -> usize {
        self.sources.iter().filter(|s| s.status != "ok").count()
    }
}

/// Searches `sources` in parallel, each for at most `timeout`; ranks, deduplicates (one row
/// per identifier, the most trusted copy) and keeps `limit` results. Sources that only
/// serve installs (plain URLs) are skipped.
pub fn search(
    sources: &[Arc<dyn Source>],
    query: &str,
    limit: usize,
    timeout: Duration,
) -> Outcome {
    let searchable: Vec<&Arc<dyn Source>> = sources
        .iter()
        .filter(|s| s.name() != "url" && s.name() != "well-known:*")
        .collect();
    let (tx, rx) = mpsc::channel();
    for (i, source) in searchable.iter().enumerate() {
        let source = Arc::clone(source);
        let tx = tx.clone();
        let query = query.to_string();
        // A source past its deadline is left running on its detached thread; the process
        // does not wait for it.
        std::thread::spawn(move || {
            let _ = tx.send((i, source.search(&query, PER_SOURCE.max(limit))));
        });
    }
    drop(tx);
    let deadline = Instant::now() + timeout;
    let mut answers: Vec<Option<Result<Vec<SkillMeta>, HubError>>> =
        (0..searchable.len()).map(|_| None).collect();
    let mut pending = searchable.len();
    while pending > 0 {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok((i, answer)) => {
                answers[i] = Some(answer);
                pending -= 1;
            }
            Err(_) => break,
        }
    }
    let mut reports = Vec::new();
    let mut found: Vec<(usize, SkillMeta)> = Vec::new();
    for (i, (source, answer)) in searchable.iter().zip(answers).enumerate() {
        let report = match answer {
            Some(Ok(metas)) => {
                let matching: Vec<SkillMeta> = metas
                    .into_iter()
                    .filter(|m| rank(m, query).is_some())
                    .collect();
                let n = matching.len();
                found.extend(matching.into_iter().map(|m| (i, m)));
                SourceReport {
                    source: source.name(),
                    status: "ok",
                    results: n,
                    error: None,
                }
            }
            // A request that hit its own timeout (the same length as the deadline) is the
            // same event as the deadline passing; report it the same way.
            Some(Err(HubError::TimedOut { .. })) | None => SourceReport {
                source: source.name(),
                status: "timeout",
                results: 0,
                error: Some(format!("no answer within {:.1} s", timeout.as_secs_f64())),
            },
            Some(Err(e)) => SourceReport {
                source: source.name(),
                status: "error",
                results: 0,
                error: Some(e.to_string()),
            },
        };
        reports.push(report);
    }
    Outcome {
        results: rank_all(found, query, limit),
        sources: reports,
    }
}

/// Exact name 0, name prefix 1, whole word of the name 2, inside the name 3, in the
/// description 4, anything for an empty query 5; `None` when it does not match.
pub fn rank(meta: &SkillMeta, query: &str) -> Option<u8> {
    let q = query.trim().to_lowercase();
    if q.is_empty() {
        return Some(5);
    }
    let name = meta.name.to_lowercase();
    if name == q {
        Some(0)
    } else if name.starts_with(&q) {
        Some(1)
    } else if name.split(['-', '_', ' ', '.']).any(|w| w == q) {
        Some(2)
    } else if name.contains(&q) {
        Some(3)
    } else if meta.description.to_lowercase().contains(&q) {
        Some(4)
    } else {
        None
    }
}

fn trust_rank(t: Trust) -> u8 {
    match t {
        Trust::Builtin => 3,
        Trust::Trusted => 2,
        Trust::AgentCreated => 1,
        Trust::Community => 0,
    }
}

/// One row per identifier (the most trusted), sorted by rank, trust, source order, name.
fn rank_all(found: Vec<(usize, SkillMeta)>, query: &str, limit: usize) -> Vec<SkillMeta> {
    let mut best: HashMap<String, (usize, SkillMeta)> = HashMap::new();
    for (i, meta) in found {
        match best.get(&meta.identifier) {
            Some((_, kept)) if trust_rank(kept.trust_level) >= trust_rank(meta.trust_level) => {}
            _ => {
                best.insert(meta.identifier.clone(), (i, meta));
            }
        }
    }
    let mut rows: Vec<(u8, usize, SkillMeta)> = best
        .into_values()
        .map(|(i, m)| (rank(&m, query).unwrap_or(5), i, m))
        .collect();
    rows.sort_by(|a, b| {
        (a.0, std::cmp::Reverse(trust_rank(a.2.trust_level)), a.1)
            .cmp(&(b.0, std::cmp::Reverse(trust_rank(b.2.trust_level)), b.1))
            .then_with(|| a.2.name.to_lowercase().cmp(&b.2.name.to_lowercase()))
            .then_with(|| a.2.identifier.cmp(&b.2.identifier))
    });
    rows.into_iter().take(limit).map(|(_, _, m)| m).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(name: &str, desc: &str, id: &str, trust: Trust) -> SkillMeta {
        SkillMeta {
            name: name.into(),
            description: desc.into(),
            source: "tap".into(),
            identifier: id.into(),
            trust_level: trust,
        }
    }

    #[test]
    fn ranks_and_dedupes() {
        let found = vec![
            (0, meta("pdf-tools", "", "a/b/pdf-tools", Trust::Community)),
            (1, meta("pdf", "", "x/y/pdf", Trust::Community)),
            (
                2,
                meta("docs", "reads pdf files", "x/y/docs", Trust::Community),
            ),
            (1, meta("pdf", "", "x/y/pdf", Trust::Trusted)),
            (0, meta("other", "", "x/y/other", Trust::Community)),
        ];
        let rows = rank_all(
            found
                .into_iter()
                .filter(|(_, m)| rank(m, "pdf").is_some())
                .collect(),
            "pdf",
            10,
        );
        let names: Vec<(&str, Trust)> = rows
            .iter()
            .map(|m| (m.name.as_str(), m.trust_level))
            .collect();
        assert_eq!(
            names,
            [
                ("pdf", Trust::Trusted),
                ("pdf-tools", Trust::Community),
                ("docs", Trust::Community)
            ]
        );
    }
}
