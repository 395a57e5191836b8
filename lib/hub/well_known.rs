//! A site serving `/.well-known/skills/index.json`:
//! `{"skills":[{"name","description","files":["SKILL.md",…]}]}`, each file at
//! `<base>/<skill>/<file>`. Identifiers are `well-known:<base>/<skill>`; trust is community.

use serde_json::{Map, Value};

use super::HubError;
use super::bundle::{self, Bundle};
use super::identifier::{Identifier, WELL_KNOWN_PATH};
use super::net::Net;
use super::source::{SkillMeta, Source};
use crate::guard::Trust;

pub struct WellKnownSource {
    /// `<site>/.well-known/skills`; `None` serves any well-known identifier (installs of a
    /// site that is not configured).
    pub base: Option<String>,
    pub net: Net,
}

impl WellKnownSource {
    /// The source for a site root (`https://example.com`) or a full base URL.
    pub fn for_site(site: &str, net: Net) -> WellKnownSource {
        let site = site.trim_end_matches('/');
        let site = site.strip_suffix("/index.json").unwrap_or(site);
        let base = if site.ends_with(WELL_KNOWN_PATH) {
            site.to_string()
        } else {
            format!("{site}{WELL_KNOWN_PATH}")
        };
        WellKnownSource {
            base: Some(base),
            net,
        }
    }

    fn index(&self, base: &str) -> Result<Vec<Value>, HubError> {
        let url = format!("{base}/index.json");
        let response = self
            .net
            .get(&url, &[("Accept", "application/json".into())])?;
        if !response.ok() {
            return Err(HubError::Status {
                url,
                status: response.status,
            });
        }
        let value = response.json()?;
        value
            .get("skills")
            .and_then(Value::as_array)
            .cloned()
            .ok_or_else(|| HubError::invalid(format!("{url}: no \"skills\" list")))
    }
}

impl Source for WellKnownSource {
    fn name(&self) -> String {
        format!(
            "well-known:{}",
            self.base
                .as_deref()
                .map(|b| b.strip_suffix(WELL_KNOWN_PATH).unwrap_or(b))
                .unwrap_or("*")
        )
    }

    fn search(&self, _query: &str, _limit: usize) -> Result<Vec<SkillMeta>, HubError> {
        let Some(base) = &self.base else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        for entry in self.index(base)? {
            let Some(name) = entry.get("name").and_then(Value::as_str) else {
                continue;
            };
            if bundle::validate_name(name).is_err() {
                continue;
            }
            out.push(SkillMeta {
                name: name.to_string(),
                description: entry
                    .get("description")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
                source: "well-known".into(),
                identifier: format!("well-known:{base}/{name}"),
                trust_level: Trust::Community,
            });
        }
        Ok(out)
    }

    fn serves(&self, id: &Identifier) -> bool {
        match id {
            Identifier::WellKnown { base, .. } => self.base.as_ref().is_none_or(|b| b == base),
            _ => false,
        }
    }

    fn fetch(&self, id: &Identifier) -> Result<Bundle, HubError> {
        let Identifier::WellKnown { base, skill } = id else {
            return Err(HubError::NotFound(id.render()));
        };
        bundle::validate_name(skill)?;
        let entries = self.index(base)?;
        let entry = entries
            .iter()
            .find(|e| e.get("name").and_then(Value::as_str) == Some(skill.as_str()))
            .ok_or_else(|| {
                HubError::NotFound(format!("{base}/index.json lists no skill {skill:?}"))
            })?;
        let listed: Vec<String> = entry
            .get("files")
            .and_then(Value::as_array)
            .map(|f| {
                f.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .filter(|f: &Vec<String>| !f.is_empty())
            .unwrap_or_else(|| vec!["SKILL.md".into()]);
        if listed.len() > bundle::MAX_FILES {
            return Err(HubError::refused(format!(
                "{}: lists more than {} files",
                id.render(),
                bundle::MAX_FILES
            )));
        }
        let endpoint = format!("{base}/{skill}");
        let mut files = Vec::new();
        let mut total = 0u64;
        for rel in &listed {
            let rel = bundle::normalize_path(rel).map_err(|_| {
                HubError::refused(format!("{}: unsafe file path {rel:?}", id.render()))
            })?;
            let url = format!("{endpoint}/{rel}");
            let response = self.net.get(&url, &[])?;
            if !response.ok() {
                return Err(HubError::Status {
                    url,
                    status: response.status,
                });
            }
            total += response.body.len() as u64;
            if total > bundle::MAX_TOTAL_BYTES {
                return Err(HubError::TooLarge {
                    what: id.render(),
                    limit: bundle::MAX_TOTAL_BYTES,
                });
            }
            files.push((rel, response.body));
        }
        let mut metadata = Map::new();
        metadata.insert(
            "index_url".into(),
            Value::String(format!("{base}/index.json")),
        );
        metadata.insert("base_url".into(), Value::String(base.clone()));
        metadata.insert("endpoint".into(), Value::String(endpoint));
        metadata.insert(
            "files".into(),
            Value::Array(listed.into_iter().map(Value::String).collect()),
        );
        Ok(Bundle {
            name: skill.clone(),
            files,
            source: "well-known".into(),
            identifier: id.render(),
            trust: Trust::Community,
            metadata,
        })
    }
}
