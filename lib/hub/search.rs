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
    // Ends at the deadline, or once every source has answered and dropped its sender.
    while let Ok((i, answer)) = rx.recv_timeout(deadline.saturating_duration_since(Instant::now()))
    {
        answers[i] = Some(answer);
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
    use std::path::PathBuf;
    use std::sync::Mutex;

    use super::*;
    use crate::hub::bundle::Bundle;
    use crate::hub::config::Tap;
    use crate::hub::identifier::Identifier;
    use crate::hub::net::AllowPrivate;

    fn meta(name: &str, desc: &str, id: &str, trust: Trust) -> SkillMeta {
        SkillMeta {
            name: name.into(),
            description: desc.into(),
            source: "tap".into(),
            identifier: id.into(),
            trust_level: trust,
        }
    }

    fn named(name: &str) -> SkillMeta {
        meta(name, "", &format!("id/{name}"), Trust::Community)
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

    #[test]
    fn rank_levels() {
        let m = |name: &str, desc: &str| meta(name, desc, "id", Trust::Community);
        assert_eq!(rank(&m("pdf", ""), "pdf"), Some(0));
        assert_eq!(rank(&m("PDF", ""), "  Pdf "), Some(0));
        assert_eq!(rank(&m("pdf-tools", ""), "pdf"), Some(1));
        for name in ["my-pdf", "my_pdf", "my pdf", "my.pdf", "a-pdf-b"] {
            assert_eq!(rank(&m(name, ""), "pdf"), Some(2), "{name}");
        }
        assert_eq!(rank(&m("mypdfs", ""), "pdf"), Some(3));
        assert_eq!(rank(&m("my-pdfs", ""), "pdf"), Some(3));
        assert_eq!(rank(&m("docs", "Reads PDF files"), "pdf"), Some(4));
        assert_eq!(rank(&m("docs", "reads text"), "pdf"), None);
        // The name outranks the description.
        assert_eq!(rank(&m("pdf", "pdf"), "pdf"), Some(0));
        assert_eq!(rank(&m("docs", "anything"), ""), Some(5));
        assert_eq!(rank(&m("docs", "anything"), "  "), Some(5));
    }

    #[test]
    fn the_more_trusted_copy_of_an_identifier_is_kept_whichever_comes_first() {
        for found in [
            vec![
                (0, meta("pdf", "first", "a/b/pdf", Trust::Community)),
                (1, meta("pdf", "second", "a/b/pdf", Trust::Trusted)),
            ],
            vec![
                (1, meta("pdf", "second", "a/b/pdf", Trust::Trusted)),
                (0, meta("pdf", "first", "a/b/pdf", Trust::Community)),
            ],
        ] {
            assert_eq!(
                rank_all(found, "pdf", 10),
                vec![meta("pdf", "second", "a/b/pdf", Trust::Trusted)]
            );
        }
        // Equally trusted: the first found stays.
        let found = vec![
            (1, meta("pdf", "first", "a/b/pdf", Trust::Community)),
            (0, meta("pdf", "second", "a/b/pdf", Trust::Community)),
        ];
        assert_eq!(
            rank_all(found, "pdf", 10),
            vec![meta("pdf", "first", "a/b/pdf", Trust::Community)]
        );
    }

    #[test]
    fn rows_sort_by_rank_then_trust_then_source_then_name_then_identifier() {
        let found = vec![
            (0, meta("c", "", "id/community", Trust::Community)),
            (1, meta("c", "", "id/agent", Trust::AgentCreated)),
            (2, meta("c", "", "id/trusted", Trust::Trusted)),
            (3, meta("c", "", "id/builtin", Trust::Builtin)),
        ];
        let ids: Vec<String> = rank_all(found, "", 10)
            .into_iter()
            .map(|m| m.identifier)
            .collect();
        assert_eq!(
            ids,
            ["id/builtin", "id/trusted", "id/agent", "id/community"]
        );

        let found = vec![
            (1, meta("A", "", "id/1", Trust::Community)),
            (0, meta("zeta", "", "id/2", Trust::Community)),
            (1, meta("b", "", "id/4", Trust::Community)),
            (1, meta("b", "", "id/3", Trust::Community)),
            (2, meta("query", "", "id/5", Trust::Community)),
        ];
        let ids: Vec<String> = rank_all(found.clone(), "", 10)
            .into_iter()
            .map(|m| m.identifier)
            .collect();
        assert_eq!(ids, ["id/2", "id/1", "id/3", "id/4", "id/5"]);
        // The rank comes first: an exact name beats an earlier source.
        let ids: Vec<String> = rank_all(
            vec![
                (0, meta("x", "query", "id/desc", Trust::Builtin)),
                (1, meta("query", "", "id/name", Trust::Community)),
            ],
            "query",
            10,
        )
        .into_iter()
        .map(|m| m.identifier)
        .collect();
        assert_eq!(ids, ["id/name", "id/desc"]);
        // And the limit keeps the first rows.
        let ids: Vec<String> = rank_all(found, "", 2)
            .into_iter()
            .map(|m| m.identifier)
            .collect();
        assert_eq!(ids, ["id/2", "id/1"]);
    }

    fn net() -> Net {
        Net::with(Duration::from_secs(1), AllowPrivate::None, 1024).expect("a client")
    }

    fn config(github: bool) -> HubConfig {
        HubConfig {
            taps: vec![
                Tap {
                    name: "a".into(),
                    path: PathBuf::from("/a"),
                },
                Tap {
                    name: "b".into(),
                    path: PathBuf::from("/b"),
                },
            ],
            well_known: vec!["https://w.dev".into()],
            github,
            github_taps: Vec::new(),
            github_api: "https://api.github.com".into(),
            github_token: None,
            timeout: Duration::from_secs(1),
        }
    }

    fn source_names(config: &HubConfig, filter: &str) -> Vec<String> {
        match sources(config, &net(), filter) {
            Ok(list) => list.iter().map(|s| s.name()).collect(),
            Err(e) => panic!("{filter}: {e}"),
        }
    }

    #[test]
    fn sources_in_router_order() {
        assert_eq!(
            source_names(&config(true), "all"),
            [
                "tap:a",
                "tap:b",
                "well-known:https://w.dev",
                "github",
                "well-known:*",
                "url"
            ]
        );
        assert_eq!(
            source_names(&config(false), "all"),
            [
                "tap:a",
                "tap:b",
                "well-known:https://w.dev",
                "well-known:*",
                "url"
            ]
        );
    }

    #[test]
    fn sources_filtered_by_kind_or_name() {
        let c = config(true);
        assert_eq!(source_names(&c, "tap"), ["tap:a", "tap:b"]);
        assert_eq!(
            source_names(&c, "well-known"),
            ["well-known:https://w.dev", "well-known:*"]
        );
        assert_eq!(source_names(&c, "github"), ["github"]);
        assert_eq!(source_names(&c, "url"), ["url"]);
        assert_eq!(source_names(&c, "tap:b"), ["tap:b"]);
        assert_eq!(
            source_names(&c, "well-known:https://w.dev"),
            ["well-known:https://w.dev"]
        );
    }

    #[test]
    fn a_filter_that_matches_no_source_is_an_error() {
        for (c, filter) in [(config(true), "gitlab"), (config(false), "github")] {
            let err = match sources(&c, &net(), filter) {
                Ok(_) => panic!("{filter} matches nothing"),
                Err(e) => e,
            };
            assert!(matches!(err, HubError::Invalid(_)), "{err:?}");
            assert_eq!(
                err.to_string(),
                format!(
                    "no source matches --source {filter:?} (all, tap, well-known, github, url, or a source name)"
                )
            );
        }
    }

    #[test]
    fn failed_counts_the_sources_that_were_not_ok() {
        let report = |status| SourceReport {
            source: "s".into(),
            status,
            results: 0,
            error: None,
        };
        let outcome = Outcome {
            results: Vec::new(),
            sources: vec![
                report("ok"),
                report("error"),
                report("ok"),
                report("timeout"),
            ],
        };
        assert_eq!(outcome.failed(), 2);
        assert_eq!(Outcome::default().failed(), 0);
    }

    #[test]
    fn a_source_report_serializes_without_an_absent_error() {
        let ok = SourceReport {
            source: "github".into(),
            status: "ok",
            results: 3,
            error: None,
        };
        assert_eq!(
            serde_json::to_value(&ok).expect("serializes"),
            serde_json::json!({"source": "github", "status": "ok", "results": 3})
        );
        let failed = SourceReport {
            error: Some("boom".into()),
            status: "error",
            results: 0,
            ..ok
        };
        assert_eq!(
            serde_json::to_value(&failed).expect("serializes"),
            serde_json::json!({"source": "github", "status": "error", "results": 0, "error": "boom"})
        );
    }

    /// A source with a fixed answer after a pause; it records the limits it was asked for.
    struct Fake {
        name: &'static str,
        delay: Duration,
        answer: fn() -> Result<Vec<SkillMeta>, HubError>,
        asked: Mutex<Vec<(String, usize)>>,
    }

    impl Source for Fake {
        fn name(&self) -> String {
            self.name.into()
        }
        fn search(&self, query: &str, limit: usize) -> Result<Vec<SkillMeta>, HubError> {
            self.asked
                .lock()
                .expect("asked lock")
                .push((query.to_string(), limit));
            std::thread::sleep(self.delay);
            (self.answer)()
        }
        fn serves(&self, _: &Identifier) -> bool {
            false
        }
        fn fetch(&self, id: &Identifier) -> Result<Bundle, HubError> {
            Err(HubError::NotFound(id.render()))
        }
    }

    fn fake(
        name: &'static str,
        delay_ms: u64,
        answer: fn() -> Result<Vec<SkillMeta>, HubError>,
    ) -> Arc<Fake> {
        Arc::new(Fake {
            name,
            delay: Duration::from_millis(delay_ms),
            answer,
            asked: Mutex::new(Vec::new()),
        })
    }

    fn report(
        source: &str,
        status: &'static str,
        results: usize,
        error: Option<&str>,
    ) -> SourceReport {
        SourceReport {
            source: source.into(),
            status,
            results,
            error: error.map(str::to_string),
        }
    }

    #[test]
    fn every_source_is_reported_and_what_answered_in_time_is_ranked() {
        let first = fake("first", 100, || {
            Ok(vec![named("pdf-b"), named("unrelated"), named("pdf")])
        });
        let second = fake("second", 0, || Ok(vec![named("pdf-a")]));
        let broken = fake("broken", 0, || Err(HubError::invalid("bad JSON")));
        let timed_out = fake("timed-out", 0, || {
            Err(HubError::TimedOut {
                url: "https://x.dev".into(),
            })
        });
        let slow = fake("slow", 5_000, || Ok(vec![named("pdf-slow")]));
        // Sources that only serve installs are not searched.
        let url = fake("url", 0, || Ok(vec![named("pdf-url")]));
        let any_site = fake("well-known:*", 0, || Ok(vec![named("pdf-any")]));
        let list: Vec<Arc<dyn Source>> = vec![
            first.clone(),
            second.clone(),
            broken,
            timed_out,
            slow,
            url.clone(),
            any_site.clone(),
        ];
        let outcome = search(&list, "pdf", 10, Duration::from_millis(1500));
        let names: Vec<&str> = outcome.results.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["pdf", "pdf-b", "pdf-a"]);
        assert_eq!(
            outcome.sources,
            vec![
                report("first", "ok", 2, None),
                report("second", "ok", 1, None),
                report("broken", "error", 0, Some("bad JSON")),
                report("timed-out", "timeout", 0, Some("no answer within 1.5 s")),
                report("slow", "timeout", 0, Some("no answer within 1.5 s")),
            ]
        );
        assert_eq!(outcome.failed(), 3);
        assert_eq!(
            *first.asked.lock().expect("lock"),
            [("pdf".to_string(), 50)]
        );
        assert_eq!(*url.asked.lock().expect("lock"), []);
        assert_eq!(*any_site.asked.lock().expect("lock"), []);
    }

    #[test]
    fn each_source_is_asked_for_at_least_50_candidates_and_the_limit_applies_to_the_answer() {
        let many = fake("many", 0, || {
            Ok((0..120).map(|i| named(&format!("s{i:03}"))).collect())
        });
        let list: Vec<Arc<dyn Source>> = vec![many.clone()];
        let outcome = search(&list, "", 80, Duration::from_secs(5));
        assert_eq!(outcome.results.len(), 80);
        assert_eq!(outcome.results[79].name, "s079");
        assert_eq!(outcome.sources, vec![report("many", "ok", 120, None)]);
        let outcome = search(&list, "s11", 3, Duration::from_secs(5));
        let names: Vec<&str> = outcome.results.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["s110", "s111", "s112"]);
        assert_eq!(
            *many.asked.lock().expect("lock"),
            [(String::new(), 80), ("s11".to_string(), 50)]
        );
    }

    #[test]
    fn no_sources_no_results() {
        let outcome = search(&[], "pdf", 10, Duration::from_secs(1));
        assert_eq!(outcome.results, Vec::new());
        assert_eq!(outcome.sources, Vec::new());
    }
}
