//! What every source offers: search, inspect (metadata of one skill) and fetch (the skill's
//! files). Errors are returned, never swallowed: a search reports them per source, an
//! install stops on them.

use serde::Serialize;

use super::HubError;
use super::bundle::Bundle;
use super::identifier::Identifier;
use crate::guard::Trust;

/// One skill a source knows about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkillMeta {
    pub name: String,
    pub description: String,
    /// The source kind (`github`, `well-known`, `url`, `tap`).
    pub source: String,
    pub identifier: String,
    pub trust_level: Trust,
}

pub trait Source: Send + Sync {
    /// The name this source is reported under (`github`, `well-known:<url>`, `tap:<name>`).
    fn name(&self) -> String;

    /// Candidates for `query`; ranking and the final filtering happen in [`super::search`].
    fn search(&self, query: &str, limit: usize) -> Result<Vec<SkillMeta>, HubError>;

    /// Whether this source serves `id`.
    fn serves(&self, id: &Identifier) -> bool;

    /// The skill's files; `NotFound` when this source does not have it.
    fn fetch(&self, id: &Identifier) -> Result<Bundle, HubError>;

    /// The skill's metadata, read from its SKILL.md.
    fn inspect(&self, id: &Identifier) -> Result<SkillMeta, HubError> {
        let bundle = self.fetch(id)?;
        Ok(meta_of(&bundle))
    }
}

/// Metadata read from a bundle's SKILL.md frontmatter.
pub fn meta_of(bundle: &Bundle) -> SkillMeta {
    let text = bundle
        .file("SKILL.md")
        .map(|b| String::from_utf8_lossy(b).into_owned())
        .unwrap_or_default();
    let (name, description) = frontmatter_fields(&text);
    SkillMeta {
        name: name.unwrap_or_else(|| bundle.name.clone()),
        description: description.unwrap_or_default(),
        source: bundle.source.clone(),
        identifier: bundle.identifier.clone(),
        trust_level: bundle.trust,
    }
}

/// The frontmatter `name` and `description` of SKILL.md text, when they are text.
pub fn frontmatter_fields(text: &str) -> (Option<String>, Option<String>) {
    let fm = crate::skills::frontmatter::parse(text);
    (
        fm.name().map(str::to_string),
        fm.description().map(str::to_string),
    )
}
