//! A plain URL: a `SKILL.md` (the skill is that one file) or a `.tar.gz` of a skill folder.
//! Nothing to search; trust is community. The name comes from the frontmatter `name` when it
//! is a valid skill name, else from the URL.

use serde_json::{Map, Value};

use super::HubError;
use super::archive;
use super::bundle::Bundle;
use super::identifier::Identifier;
use super::net::Net;
use super::source::{SkillMeta, Source, frontmatter_fields};
use crate::guard::Trust;

pub struct UrlSource {
    pub net: Net,
}

/// Names Hermes will not take from a URL (`skill`, `readme`, …).
const SENTINELS: [&str; 4] = ["skill", "readme", "index", "unnamed-skill"];

fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
        && !SENTINELS.contains(&name)
        && name.len() <= 64
}

fn is_archive(url: &str) -> bool {
    let path = url.split(['?', '#']).next().unwrap_or(url);
    path.ends_with(".tar.gz") || path.ends_with(".tgz") || path.ends_with(".zip")
}

/// The last meaningful URL path segment: the folder of a SKILL.md, an archive's stem.
fn slug(url: &str) -> String {
    let path = url.split(['?', '#']).next().unwrap_or(url);
    let mut segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    if segments
        .last()
        .is_some_and(|s| s.eq_ignore_ascii_case("SKILL.md"))
    {
        segments.pop();
    }
    let last = segments.last().copied().unwrap_or_default();
    let stem = ["tar.gz", "tgz", "zip", "md"]
        .iter()
        .find_map(|ext| last.strip_suffix(&format!(".{ext}")))
        .unwrap_or(last);
    stem.to_ascii_lowercase()
}

impl Source for UrlSource {
    fn name(&self) -> String {
        "url".into()
    }

    fn search(&self, _query: &str, _limit: usize) -> Result<Vec<SkillMeta>, HubError> {
        Ok(Vec::new())
    }

    fn serves(&self, id: &Identifier) -> bool {
        matches!(id, Identifier::Url(_))
    }

    fn fetch(&self, id: &Identifier) -> Result<Bundle, HubError> {
        let Identifier::Url(url) = id else {
            return Err(HubError::NotFound(id.render()));
        };
        let response = self.net.get(url, &[])?;
        if !response.ok() {
            return Err(HubError::Status {
                url: url.clone(),
                status: response.status,
            });
        }
        let files = if is_archive(url) || response.body.starts_with(&[0x1f, 0x8b]) {
            archive::unpack(&response.body, url)?
        } else {
            vec![("SKILL.md".to_string(), response.body.clone())]
        };
        let skill_md = files
            .iter()
            .find(|(r, _)| r == "SKILL.md")
            .map(|(_, b)| String::from_utf8_lossy(b).into_owned())
            .ok_or_else(|| HubError::invalid(format!("{url}: the archive has no SKILL.md")))?;
        let (fm_name, _) = frontmatter_fields(&skill_md);
        let name = fm_name
            .filter(|n| valid_name(n))
            .or_else(|| Some(slug(url)).filter(|s| valid_name(s)))
            .ok_or_else(|| {
                HubError::invalid(format!(
                    "{url}: no valid skill name in the frontmatter or the URL"
                ))
            })?;
        let mut metadata = Map::new();
        metadata.insert("url".into(), Value::String(url.clone()));
        metadata.insert("source_url".into(), Value::String(response.url.clone()));
        Ok(Bundle {
            name,
            files,
            source: "url".into(),
            identifier: url.clone(),
            trust: Trust::Community,
            metadata,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_from_urls() {
        assert_eq!(slug("https://x.dev/skills/pdf-tools/SKILL.md"), "pdf-tools");
        assert_eq!(slug("https://x.dev/dl/pdf.tar.gz?v=2"), "pdf");
        assert!(!valid_name("skill"));
        assert!(!valid_name("Pdf"));
        assert!(valid_name("pdf_tools-2"));
    }
}
