//! GitHub through the contents API: the taps (repository + folder) are listed for search,
//! and a skill folder is fetched file by file (raw media type). A token from `GITHUB_TOKEN`
//! or `GH_TOKEN` raises the rate limit; when the limit is reached the error says so in one
//! line, with the reset time. Trust: trusted for Hermes's trusted repositories (compared
//! case-insensitively, as GitHub compares names), community otherwise.

use serde_json::{Map, Value};

use super::HubError;
use super::bundle::{self, Bundle, MAX_FILES, MAX_TOTAL_BYTES};
use super::identifier::Identifier;
use super::net::{Net, Response};
use super::source::{Get, SkillMeta, Source, frontmatter_fields};
use crate::guard::Trust;

/// Deepest folder nesting fetched inside one skill.
const MAX_DEPTH: usize = 6;

pub struct GitHubSource<G = Net> {
    pub api: String,
    pub token: Option<String>,
    pub taps: Vec<(String, String)>,
    pub net: G,
}

/// One entry of a contents listing.
struct Entry {
    name: String,
    path: String,
    kind: String,
}

impl<G: Get> GitHubSource<G> {
    fn headers(&self, raw: bool) -> Vec<(&'static str, String)> {
        let mut headers = vec![
            (
                "Accept",
                if raw {
                    "application/vnd.github.raw".to_string()
                } else {
                    "application/vnd.github+json".to_string()
                },
            ),
            ("X-GitHub-Api-Version", "2022-11-28".to_string()),
        ];
        if let Some(token) = &self.token {
            headers.push(("Authorization", format!("token {token}")));
        }
        headers
    }

    fn contents_url(&self, repo: &str, path: &str) -> String {
        format!(
            "{}/repos/{repo}/contents/{}",
            self.api,
            path.trim_matches('/')
        )
    }

    /// GET with the rate-limit check; 404 is `Ok(None)`. A 5xx answer or a dropped
    /// connection is tried twice more (250 ms, then 500 ms later), as Hermes retries.
    fn call(&self, url: &str, raw: bool) -> Result<Option<Response>, HubError> {
        self.call_pausing(url, raw, std::thread::sleep)
    }

    /// [`Self::call`] with the pauses between tries taken by `sleep`.
    fn call_pausing(
        &self,
        url: &str,
        raw: bool,
        mut sleep: impl FnMut(std::time::Duration),
    ) -> Result<Option<Response>, HubError> {
        let mut pause = std::time::Duration::from_millis(250);
        let mut attempt = 0;
        let response = loop {
            attempt += 1;
            match self.net.get(url, &self.headers(raw)) {
                Ok(r) if r.status >= 500 && attempt < 3 => {}
                Ok(r) => break r,
                Err(HubError::Network { .. }) if attempt < 3 => {}
                Err(e) => return Err(e),
            }
            sleep(pause);
            pause *= 2;
        };
        if matches!(response.status, 403 | 429)
            && (response.header("x-ratelimit-remaining") == Some("0") || response.status == 429)
        {
            let reset = response
                .header("x-ratelimit-reset")
                .and_then(|r| r.trim().parse::<i64>().ok())
                .and_then(|r| jiff::Timestamp::from_second(r).ok())
                .map(|t| format!(" (resets at {} UTC)", t.strftime("%H:%M")))
                .unwrap_or_default();
            return Err(HubError::RateLimited { reset });
        }
        if response.status == 404 {
            return Ok(None);
        }
        if !response.ok() {
            return Err(HubError::Status {
                url: url.to_string(),
                status: response.status,
            });
        }
        Ok(Some(response))
    }

    fn list(&self, repo: &str, path: &str) -> Result<Option<Vec<Entry>>, HubError> {
        let url = self.contents_url(repo, path);
        let Some(response) = self.call(&url, false)? else {
            return Ok(None);
        };
        let value = response.json()?;
        let Some(items) = value.as_array() else {
            return Err(HubError::invalid(format!("{url}: not a folder listing")));
        };
        Ok(Some(
            items
                .iter()
                .filter_map(|item| {
                    Some(Entry {
                        name: item.get("name")?.as_str()?.to_string(),
                        path: item.get("path")?.as_str()?.to_string(),
                        kind: item.get("type")?.as_str()?.to_string(),
                    })
                })
                .collect(),
        ))
    }

    fn raw(&self, repo: &str, path: &str) -> Result<Option<Vec<u8>>, HubError> {
        Ok(self
            .call(&self.contents_url(repo, path), true)?
            .map(|r| r.body))
    }

    fn collect(
        &self,
        repo: &str,
        root: &str,
        dir: &str,
        depth: usize,
        files: &mut Vec<(String, Vec<u8>)>,
    ) -> Result<(), HubError> {
        let entries = self
            .list(repo, dir)?
            .ok_or_else(|| HubError::NotFound(format!("{repo}/{dir} not found on GitHub")))?;
        for entry in entries {
            let rel = entry
                .path
                .strip_prefix(root)
                .map(|r| r.trim_start_matches('/').to_string())
                .unwrap_or_else(|| entry.name.clone());
            let rel = bundle::normalize_path(&rel)?;
            match entry.kind.as_str() {
                "file" => {
                    if files.len() >= MAX_FILES {
                        return Err(HubError::refused(format!(
                            "{repo}/{root}: more than {MAX_FILES} files"
                        )));
                    }
                    let bytes = self.raw(repo, &entry.path)?.ok_or_else(|| {
                        HubError::NotFound(format!("{repo}/{} vanished", entry.path))
                    })?;
                    let total: u64 = files.iter().map(|(_, b)| b.len() as u64).sum();
                    if total + bytes.len() as u64 > MAX_TOTAL_BYTES {
                        return Err(HubError::TooLarge {
                            what: format!("{repo}/{root}"),
                            limit: MAX_TOTAL_BYTES,
                        });
                    }
                    files.push((rel, bytes));
                }
                "dir" if depth < MAX_DEPTH => {
                    self.collect(repo, root, &entry.path, depth + 1, files)?;
                }
                "dir" => {
                    return Err(HubError::refused(format!(
                        "{repo}/{root}: folders nested deeper than {MAX_DEPTH}"
                    )));
                }
                other => {
                    return Err(HubError::refused(format!(
                        "{repo}/{}: a {other} entry; links and submodules are refused",
                        entry.path
                    )));
                }
            }
        }
        Ok(())
    }
}

impl<G: Get> Source for GitHubSource<G> {
    fn name(&self) -> String {
        "github".into()
    }

    fn search(&self, query: &str, limit: usize) -> Result<Vec<SkillMeta>, HubError> {
        let needle = query.trim().to_lowercase();
        let mut out = Vec::new();
        for (repo, folder) in &self.taps {
            let Some(entries) = self.list(repo, folder)? else {
                continue;
            };
            for entry in entries {
                if out.len() >= limit {
                    break;
                }
                if entry.kind != "dir" || entry.name.starts_with(['.', '_']) {
                    continue;
                }
                if !needle.is_empty() && !entry.name.to_lowercase().contains(&needle) {
                    continue;
                }
                let text = self
                    .raw(repo, &format!("{}/SKILL.md", entry.path))?
                    .map(|b| String::from_utf8_lossy(&b).into_owned());
                let Some(text) = text else { continue };
                let (_, description) = frontmatter_fields(&text);
                let identifier = format!("{repo}/{}", entry.path);
                out.push(SkillMeta {
                    name: entry.name.clone(),
                    description: description.unwrap_or_default(),
                    source: "github".into(),
                    trust_level: Trust::from_source(&identifier),
                    identifier,
                });
            }
        }
        Ok(out)
    }

    fn serves(&self, id: &Identifier) -> bool {
        matches!(id, Identifier::GitHub { .. })
    }

    fn fetch(&self, id: &Identifier) -> Result<Bundle, HubError> {
        let Identifier::GitHub { repo, path } = id else {
            return Err(HubError::NotFound(id.render()));
        };
        let mut files = Vec::new();
        self.collect(repo, path, path, 0, &mut files)?;
        let name = path.rsplit('/').next().unwrap_or(path).to_string();
        let identifier = id.render();
        let mut metadata = Map::new();
        metadata.insert(
            "source_url".into(),
            Value::String(format!("https://github.com/{repo}/tree/HEAD/{path}")),
        );
        Ok(Bundle {
            name,
            files,
            source: "github".into(),
            trust: Trust::from_source(&identifier),
            identifier,
            metadata,
        })
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;

    use serde_json::json;

    use super::*;
    use crate::hub::source::tests::Canned;

    const API: &str = "https://api.test";

    fn gh(net: Canned) -> GitHubSource<Canned> {
        GitHubSource {
            api: API.into(),
            token: None,
            taps: Vec::new(),
            net,
        }
    }

    fn contents(repo: &str, path: &str) -> String {
        format!("{API}/repos/{repo}/contents/{path}")
    }

    /// A contents listing: (name, path, type) per entry.
    fn listing(entries: &[(&str, &str, &str)]) -> String {
        Value::Array(
            entries
                .iter()
                .map(|(name, path, kind)| json!({"name": name, "path": path, "type": kind}))
                .collect(),
        )
        .to_string()
    }

    /// Calls `url` with pauses recorded instead of taken (more than five is a loop).
    fn call(
        source: &GitHubSource<Canned>,
        url: &str,
    ) -> (Result<Option<Response>, HubError>, Vec<u64>) {
        let pauses = RefCell::new(Vec::new());
        let result = source.call_pausing(url, false, |d| {
            let mut p = pauses.borrow_mut();
            p.push(d.as_millis() as u64);
            assert!(p.len() <= 5, "retries without end: {p:?}");
        });
        (result, pauses.into_inner())
    }

    fn network(url: &str) -> HubError {
        HubError::Network {
            url: url.into(),
            detail: "connection reset".into(),
        }
    }

    #[test]
    fn contents_urls() {
        let source = gh(Canned::new());
        assert_eq!(
            source.contents_url("acme/skills", "/skills/pdf/"),
            "https://api.test/repos/acme/skills/contents/skills/pdf"
        );
        assert_eq!(
            source.contents_url("acme/skills", ""),
            "https://api.test/repos/acme/skills/contents/"
        );
    }

    #[test]
    fn headers_ask_for_json_or_raw_and_carry_the_token() {
        let pairs = |h: Vec<(&'static str, String)>| -> Vec<(String, String)> {
            h.into_iter().map(|(n, v)| (n.to_string(), v)).collect()
        };
        let mut source = gh(Canned::new());
        assert_eq!(
            pairs(source.headers(false)),
            [
                (
                    "Accept".to_string(),
                    "application/vnd.github+json".to_string()
                ),
                ("X-GitHub-Api-Version".to_string(), "2022-11-28".to_string()),
            ]
        );
        source.token = Some("s3cret".into());
        assert_eq!(
            pairs(source.headers(true)),
            [
                (
                    "Accept".to_string(),
                    "application/vnd.github.raw".to_string()
                ),
                ("X-GitHub-Api-Version".to_string(), "2022-11-28".to_string()),
                ("Authorization".to_string(), "token s3cret".to_string()),
            ]
        );
    }

    #[test]
    fn a_server_error_is_tried_twice_more_with_doubling_pauses() {
        let url = "https://api.test/x";
        let source = gh(Canned::new()
            .reply(url, 500, "")
            .reply(url, 503, "")
            .reply(url, 200, "ok"));
        let (result, pauses) = call(&source, url);
        let response = result.expect("the third try answers").expect("not a 404");
        assert_eq!(response.body, b"ok");
        assert_eq!(pauses, [250, 500]);
        assert_eq!(source.net.asked().len(), 3);

        let source = gh(Canned::new().reply(url, 502, "").reply(url, 200, "ok"));
        let (result, pauses) = call(&source, url);
        assert_eq!(
            result.expect("answers").map(|r| r.body),
            Some(b"ok".to_vec())
        );
        assert_eq!(pauses, [250]);
    }

    #[test]
    fn a_third_server_error_is_the_answer() {
        let url = "https://api.test/x";
        let source = gh(Canned::new().reply(url, 500, ""));
        let (result, pauses) = call(&source, url);
        let err = result.expect_err("three 500s");
        assert!(
            matches!(err, HubError::Status { ref url, status: 500 } if url == "https://api.test/x"),
            "{err:?}"
        );
        assert_eq!(pauses, [250, 500]);
        assert_eq!(source.net.asked().len(), 3);
    }

    #[test]
    fn a_client_error_is_not_retried() {
        let url = "https://api.test/x";
        let source = gh(Canned::new().reply(url, 499, "").reply(url, 200, "ok"));
        let (result, pauses) = call(&source, url);
        let err = result.expect_err("499");
        assert!(
            matches!(err, HubError::Status { status: 499, .. }),
            "{err:?}"
        );
        assert_eq!(pauses, Vec::<u64>::new());
    }

    #[test]
    fn a_dropped_connection_is_retried_a_timeout_is_not() {
        let url = "https://api.test/x";
        let source = gh(Canned::new().fail(url, network).reply(url, 200, "ok"));
        let (result, pauses) = call(&source, url);
        assert_eq!(
            result.expect("answers").map(|r| r.body),
            Some(b"ok".to_vec())
        );
        assert_eq!(pauses, [250]);

        let source = gh(Canned::new().fail(url, network));
        let (result, pauses) = call(&source, url);
        let err = result.expect_err("three failures");
        assert_eq!(err.to_string(), "https://api.test/x: connection reset");
        assert_eq!(pauses, [250, 500]);
        assert_eq!(source.net.asked().len(), 3);

        let source = gh(Canned::new()
            .fail(url, |u| HubError::TimedOut { url: u.into() })
            .reply(url, 200, "ok"));
        let (result, pauses) = call(&source, url);
        assert!(
            matches!(result, Err(HubError::TimedOut { .. })),
            "{result:?}"
        );
        assert_eq!(pauses, Vec::<u64>::new());
    }

    #[test]
    fn not_found_is_none_and_success_is_the_response() {
        let url = "https://api.test/x";
        let (result, _) = call(&gh(Canned::new().reply(url, 404, "")), url);
        assert!(matches!(result, Ok(None)), "{result:?}");
        let (result, _) = call(&gh(Canned::new().reply(url, 204, "")), url);
        assert!(
            matches!(result, Ok(Some(ref r)) if r.status == 204),
            "{result:?}"
        );
        let (result, _) = call(&gh(Canned::new().reply(url, 301, "")), url);
        assert!(
            matches!(result, Err(HubError::Status { status: 301, .. })),
            "{result:?}"
        );
    }

    #[test]
    fn the_rate_limit_is_one_error_with_the_reset_time() {
        let url = "https://api.test/x";
        let limited = |status: u16, headers: &[(&str, &str)]| {
            let source = gh(Canned::new().reply_full(url, url, status, headers, ""));
            call(&source, url).0
        };
        let err = limited(
            403,
            &[
                ("x-ratelimit-remaining", "0"),
                ("x-ratelimit-reset", " 1795979345 "),
            ],
        )
        .expect_err("rate limited");
        assert_eq!(
            err.to_string(),
            "GitHub API rate limit reached (resets at 19:09 UTC); set GITHUB_TOKEN for a higher limit"
        );
        let err = limited(429, &[("x-ratelimit-reset", "soon")]).expect_err("429");
        assert!(
            matches!(err, HubError::RateLimited { ref reset } if reset.is_empty()),
            "{err:?}"
        );
        let err = limited(429, &[]).expect_err("429");
        assert!(matches!(err, HubError::RateLimited { .. }), "{err:?}");
        // A 403 with requests left is a refusal of another kind.
        let err = limited(403, &[("x-ratelimit-remaining", "12")]).expect_err("403");
        assert!(
            matches!(err, HubError::Status { status: 403, .. }),
            "{err:?}"
        );
        let err = limited(403, &[]).expect_err("403");
        assert!(
            matches!(err, HubError::Status { status: 403, .. }),
            "{err:?}"
        );
        // The last request of the hour still answers.
        let ok = limited(200, &[("x-ratelimit-remaining", "0")]);
        assert!(matches!(ok, Ok(Some(ref r)) if r.status == 200), "{ok:?}");
    }

    #[test]
    fn listings_keep_entries_with_a_name_path_and_type() {
        let url = contents("acme/skills", "skills");
        let body = json!([
            {"name": "pdf", "path": "skills/pdf", "type": "dir", "sha": "x"},
            {"name": "README.md", "path": "skills/README.md", "type": "file"},
            {"name": "no-type", "path": "skills/no-type"},
            {"name": 3, "path": "skills/3", "type": "dir"},
            "junk",
        ]);
        let source = gh(Canned::new().reply(&url, 200, body.to_string()));
        let entries = source
            .list("acme/skills", "skills/")
            .expect("listed")
            .expect("found");
        let got: Vec<(&str, &str, &str)> = entries
            .iter()
            .map(|e| (e.name.as_str(), e.path.as_str(), e.kind.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("pdf", "skills/pdf", "dir"),
                ("README.md", "skills/README.md", "file")
            ]
        );
        assert_eq!(
            source.net.headers(0)[0],
            (
                "Accept".to_string(),
                "application/vnd.github+json".to_string()
            )
        );

        let source = gh(Canned::new().reply(&url, 200, "{\"type\": \"file\"}"));
        let err = match source.list("acme/skills", "skills") {
            Err(e) => e,
            Ok(_) => panic!("a file is not a folder"),
        };
        assert!(matches!(err, HubError::Invalid(_)), "{err:?}");
        assert_eq!(err.to_string(), format!("{url}: not a folder listing"));

        let source = gh(Canned::new().reply(&url, 404, ""));
        assert!(matches!(source.list("acme/skills", "skills"), Ok(None)));
    }

    #[test]
    fn raw_files_are_asked_for_raw() {
        let url = contents("acme/skills", "skills/pdf/SKILL.md");
        let source = gh(Canned::new().reply(&url, 200, "text"));
        assert_eq!(
            source
                .raw("acme/skills", "skills/pdf/SKILL.md")
                .expect("read"),
            Some(b"text".to_vec())
        );
        assert_eq!(
            source.net.headers(0)[0],
            (
                "Accept".to_string(),
                "application/vnd.github.raw".to_string()
            )
        );
        let source = gh(Canned::new().reply(&url, 404, "text"));
        assert_eq!(
            source
                .raw("acme/skills", "skills/pdf/SKILL.md")
                .expect("read"),
            None
        );
    }

    /// Two taps: a trusted one and a community one with a missing folder and a skill
    /// folder without a SKILL.md.
    fn taps() -> Canned {
        Canned::new()
            .reply(
                &contents("openai/skills", "skills/.curated"),
                200,
                listing(&[
                    ("pdf", "skills/.curated/pdf", "dir"),
                    (".hidden", "skills/.curated/.hidden", "dir"),
                    ("_private", "skills/.curated/_private", "dir"),
                    ("notes.md", "skills/.curated/notes.md", "file"),
                    ("PDF-Tables", "skills/.curated/PDF-Tables", "dir"),
                    ("docs", "skills/.curated/docs", "dir"),
                ]),
            )
            .reply(
                &contents("openai/skills", "skills/.curated/pdf/SKILL.md"),
                200,
                "---\nname: other-name\ndescription: Reads PDFs.\n---\n",
            )
            .reply(
                &contents("openai/skills", "skills/.curated/PDF-Tables/SKILL.md"),
                200,
                "no frontmatter",
            )
            .reply(
                &contents("openai/skills", "skills/.curated/docs/SKILL.md"),
                200,
                "---\ndescription: Docs.\n---\n",
            )
            .reply(
                &contents("openai/skills", "skills/.curated/.hidden/SKILL.md"),
                200,
                "",
            )
            .reply(
                &contents("openai/skills", "skills/.curated/_private/SKILL.md"),
                200,
                "",
            )
            .reply(&contents("gone/repo", "skills"), 404, "")
            .reply(
                &contents("acme/skills", ""),
                200,
                listing(&[("pdf-x", "pdf-x", "dir"), ("no-skill", "no-skill", "dir")]),
            )
            .reply(&contents("acme/skills", "pdf-x/SKILL.md"), 200, "")
            .reply(&contents("acme/skills", "no-skill/SKILL.md"), 404, "")
    }

    fn searching(net: Canned) -> GitHubSource<Canned> {
        GitHubSource {
            taps: vec![
                ("openai/skills".into(), "skills/.curated/".into()),
                ("gone/repo".into(), "skills".into()),
                ("acme/skills".into(), "".into()),
            ],
            ..gh(net)
        }
    }

    fn meta(name: &str, description: &str, identifier: &str, trust: Trust) -> SkillMeta {
        SkillMeta {
            name: name.into(),
            description: description.into(),
            source: "github".into(),
            identifier: identifier.into(),
            trust_level: trust,
        }
    }

    #[test]
    fn search_lists_the_skill_folders_of_every_tap() {
        let source = searching(taps());
        assert_eq!(source.name(), "github");
        assert_eq!(
            source.search("  ", 50).expect("searched"),
            vec![
                meta(
                    "pdf",
                    "Reads PDFs.",
                    "openai/skills/skills/.curated/pdf",
                    Trust::Trusted
                ),
                meta(
                    "PDF-Tables",
                    "",
                    "openai/skills/skills/.curated/PDF-Tables",
                    Trust::Trusted
                ),
                meta(
                    "docs",
                    "Docs.",
                    "openai/skills/skills/.curated/docs",
                    Trust::Trusted
                ),
                meta("pdf-x", "", "acme/skills/pdf-x", Trust::Community),
            ]
        );
    }

    #[test]
    fn search_keeps_folder_names_holding_the_query() {
        let source = searching(taps());
        let names: Vec<String> = source
            .search(" Pdf", 50)
            .expect("searched")
            .into_iter()
            .map(|m| m.name)
            .collect();
        assert_eq!(names, ["pdf", "PDF-Tables", "pdf-x"]);
        // Folders that do not match are not read.
        assert!(
            !source
                .net
                .asked()
                .contains(&contents("openai/skills", "skills/.curated/docs/SKILL.md"))
        );
    }

    #[test]
    fn search_stops_at_the_limit() {
        let source = searching(taps());
        let names: Vec<String> = source
            .search("", 2)
            .expect("searched")
            .into_iter()
            .map(|m| m.name)
            .collect();
        assert_eq!(names, ["pdf", "PDF-Tables"]);
    }

    #[test]
    fn search_errors_are_returned() {
        let source = GitHubSource {
            taps: vec![("acme/skills".into(), "skills".into())],
            ..gh(Canned::new().reply(&contents("acme/skills", "skills"), 401, ""))
        };
        let result = source.search("", 10);
        assert!(
            matches!(result, Err(HubError::Status { status: 401, .. })),
            "{result:?}"
        );
    }

    #[test]
    fn serves_github_identifiers_only() {
        let source = gh(Canned::new());
        assert!(source.serves(&Identifier::GitHub {
            repo: "a/b".into(),
            path: "c".into()
        }));
        assert!(!source.serves(&Identifier::Name("c".into())));
        assert!(!source.serves(&Identifier::Url("https://github.com/a/b".into())));
    }

    fn id(repo: &str, path: &str) -> Identifier {
        Identifier::GitHub {
            repo: repo.into(),
            path: path.into(),
        }
    }

    fn fetched(source: &GitHubSource<Canned>, repo: &str, path: &str) -> Bundle {
        match source.fetch(&id(repo, path)) {
            Ok(bundle) => bundle,
            Err(e) => panic!("{repo}/{path} should fetch: {e}"),
        }
    }

    fn fetch_error(source: &GitHubSource<Canned>, repo: &str, path: &str) -> HubError {
        match source.fetch(&id(repo, path)) {
            Ok(bundle) => panic!("{repo}/{path} should fail, fetched {bundle:?}"),
            Err(e) => e,
        }
    }

    #[test]
    fn fetch_collects_the_folder_recursively() {
        let net = Canned::new()
            .reply(
                &contents("openai/skills", "skills/pdf"),
                200,
                listing(&[
                    ("SKILL.md", "skills/pdf/SKILL.md", "file"),
                    ("references", "skills/pdf/references", "dir"),
                    // A path outside the folder is taken by its name.
                    ("odd.md", "elsewhere/odd.md", "file"),
                ]),
            )
            .reply(
                &contents("openai/skills", "skills/pdf/references"),
                200,
                listing(&[("api.md", "skills/pdf/references/api.md", "file")]),
            )
            .reply(&contents("openai/skills", "skills/pdf/SKILL.md"), 200, "s")
            .reply(
                &contents("openai/skills", "skills/pdf/references/api.md"),
                200,
                "a",
            )
            .reply(&contents("openai/skills", "elsewhere/odd.md"), 200, "o");
        let bundle = fetched(&gh(net), "openai/skills", "skills/pdf");
        assert_eq!(bundle.name, "pdf");
        assert_eq!(
            bundle.files,
            vec![
                ("SKILL.md".to_string(), b"s".to_vec()),
                ("references/api.md".to_string(), b"a".to_vec()),
                ("odd.md".to_string(), b"o".to_vec()),
            ]
        );
        assert_eq!(bundle.source, "github");
        assert_eq!(bundle.identifier, "openai/skills/skills/pdf");
        assert_eq!(bundle.trust, Trust::Trusted);
        assert_eq!(
            Value::Object(bundle.metadata),
            json!({"source_url": "https://github.com/openai/skills/tree/HEAD/skills/pdf"})
        );
    }

    #[test]
    fn a_community_repository_gives_community_trust() {
        let net = Canned::new()
            .reply(
                &contents("acme/skills", "pdf"),
                200,
                listing(&[("SKILL.md", "pdf/SKILL.md", "file")]),
            )
            .reply(&contents("acme/skills", "pdf/SKILL.md"), 200, "s");
        let bundle = fetched(&gh(net), "acme/skills", "pdf");
        assert_eq!(bundle.trust, Trust::Community);
        assert_eq!(bundle.name, "pdf");
    }

    #[test]
    fn fetch_refusals() {
        let net = Canned::new()
            .reply(&contents("acme/skills", "gone"), 404, "")
            .reply(
                &contents("acme/skills", "linky"),
                200,
                listing(&[("x", "linky/x", "symlink")]),
            )
            .reply(
                &contents("acme/skills", "sub"),
                200,
                listing(&[("m", "sub/m", "submodule")]),
            )
            .reply(
                &contents("acme/skills", "vanish"),
                200,
                listing(&[("SKILL.md", "vanish/SKILL.md", "file")]),
            )
            .reply(&contents("acme/skills", "vanish/SKILL.md"), 404, "")
            .reply(
                &contents("acme/skills", "escape"),
                200,
                listing(&[("x", "escape/../../x", "file")]),
            );
        let source = gh(net);
        let err = fetch_error(&source, "acme/skills", "gone");
        assert!(matches!(err, HubError::NotFound(_)), "{err:?}");
        assert_eq!(err.to_string(), "acme/skills/gone not found on GitHub");
        let err = fetch_error(&source, "acme/skills", "linky");
        assert!(matches!(err, HubError::Refused(_)), "{err:?}");
        assert_eq!(
            err.to_string(),
            "acme/skills/linky/x: a symlink entry; links and submodules are refused"
        );
        let err = fetch_error(&source, "acme/skills", "sub");
        assert_eq!(
            err.to_string(),
            "acme/skills/sub/m: a submodule entry; links and submodules are refused"
        );
        let err = fetch_error(&source, "acme/skills", "vanish");
        assert!(matches!(err, HubError::NotFound(_)), "{err:?}");
        assert_eq!(err.to_string(), "acme/skills/vanish/SKILL.md vanished");
        let err = fetch_error(&source, "acme/skills", "escape");
        assert!(matches!(err, HubError::Refused(_)), "{err:?}");
        assert_eq!(err.to_string(), "unsafe file path \"../../x\"");
        let err = source
            .fetch(&Identifier::Name("pdf".into()))
            .expect_err("not a GitHub identifier");
        assert!(
            matches!(err, HubError::NotFound(ref m) if m == "pdf"),
            "{err:?}"
        );
    }

    /// `depth` folders nested below `s`, each holding the next and the last a file.
    fn nested(depth: usize) -> Canned {
        let mut net = Canned::new();
        let mut dir = "s".to_string();
        for level in 1..=depth {
            let child = format!("{dir}/d{level}");
            net = net.reply(
                &contents("a/b", &dir),
                200,
                listing(&[(&format!("d{level}"), &child, "dir")]),
            );
            dir = child;
        }
        let file = format!("{dir}/SKILL.md");
        net.reply(
            &contents("a/b", &dir),
            200,
            listing(&[("SKILL.md", &file, "file")]),
        )
        .reply(&contents("a/b", &file), 200, "s")
    }

    #[test]
    fn folders_may_nest_six_deep_not_seven() {
        let bundle = fetched(&gh(nested(6)), "a/b", "s");
        assert_eq!(
            bundle.files,
            vec![("d1/d2/d3/d4/d5/d6/SKILL.md".to_string(), b"s".to_vec())]
        );
        let err = fetch_error(&gh(nested(7)), "a/b", "s");
        assert!(matches!(err, HubError::Refused(_)), "{err:?}");
        assert_eq!(err.to_string(), "a/b/s: folders nested deeper than 6");
    }

    #[test]
    fn a_skill_may_hold_500_files_not_501() {
        let files = |n: usize| -> Vec<(String, String, String)> {
            (0..n)
                .map(|i| (format!("f{i}"), format!("s/f{i}"), "file".to_string()))
                .collect()
        };
        let as_refs = |v: &[(String, String, String)]| -> String {
            let refs: Vec<(&str, &str, &str)> = v
                .iter()
                .map(|(a, b, c)| (a.as_str(), b.as_str(), c.as_str()))
                .collect();
            listing(&refs)
        };
        let mut net = Canned::new();
        for (_, path, _) in files(501) {
            net = net.reply(&contents("a/b", &path), 200, "");
        }
        let net = net
            .reply(&contents("a/b", "s"), 200, as_refs(&files(500)))
            .reply(&contents("a/b", "s"), 200, as_refs(&files(501)));
        let source = gh(net);
        assert_eq!(fetched(&source, "a/b", "s").files.len(), 500);
        let err = fetch_error(&source, "a/b", "s");
        assert!(matches!(err, HubError::Refused(_)), "{err:?}");
        assert_eq!(err.to_string(), "a/b/s: more than 500 files");
    }

    #[test]
    fn a_skill_may_hold_32_mib_not_one_byte_more() {
        let half = vec![b'x'; 16 << 20];
        let two = listing(&[("a", "s/a", "file"), ("b", "s/b", "file")]);
        let net = Canned::new()
            .reply(&contents("a/b", "s"), 200, &two)
            .reply(&contents("a/b", "s/a"), 200, &half)
            .reply(&contents("a/b", "s/b"), 200, &half)
            .reply(&contents("a/b", "s/b"), 200, [&half[..], b"x"].concat());
        let source = gh(net);
        let total: usize = fetched(&source, "a/b", "s")
            .files
            .iter()
            .map(|(_, b)| b.len())
            .sum();
        assert_eq!(total, 32 << 20);
        let err = fetch_error(&source, "a/b", "s");
        assert!(
            matches!(err, HubError::TooLarge { ref what, limit: 33_554_432 } if what == "a/b/s"),
            "{err:?}"
        );
    }
}
