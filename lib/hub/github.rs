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
use super::source::{SkillMeta, Source, frontmatter_fields};
use crate::guard::Trust;

/// Deepest folder nesting fetched inside one skill.
const MAX_DEPTH: usize = 6;

pub struct GitHubSource {
    pub api: String,
    pub token: Option<String>,
    pub taps: Vec<(String, String)>,
    pub net: Net,
}

/// One entry of a contents listing.
struct Entry {
    name: String,
    path: String,
    kind: String,
}

impl GitHubSource {
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
            std::thread::sleep(pause);
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

impl Source for GitHubSource {
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
