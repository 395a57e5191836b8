//! Identifiers as reference §7.2 spells them, and which source serves each:
//! `well-known:<base url>/<skill>` (or any URL under `/.well-known/skills/`), a plain
//! `https://…/SKILL.md` or `…/skill.tar.gz`, `<owner>/<repo>/<path/to/skill>` (GitHub, with an
//! optional `github/` prefix), `tap:<tap name>/<path>` (a configured local tap), or a bare
//! name that a search resolves.

use super::HubError;

pub const WELL_KNOWN_PATH: &str = "/.well-known/skills";

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Identifier {
    /// `base` ends with `/.well-known/skills`.
    WellKnown {
        base: String,
        skill: String,
    },
    Url(String),
    GitHub {
        repo: String,
        path: String,
    },
    Tap {
        tap: String,
        path: String,
    },
    /// A bare skill name, resolved by searching every source.
    Name(String),
}

impl Identifier {
    pub fn parse(raw: &str) -> Result<Identifier, HubError> {
        let raw = raw.trim();
        if raw.is_empty() {
            return Err(HubError::invalid("empty skill identifier"));
        }
        let bad = |why: &str| HubError::invalid(format!("bad identifier {raw:?}: {why}"));
        if let Some(url) = raw.strip_prefix("well-known:") {
            return well_known(url).ok_or_else(|| bad("expected well-known:<base url>/<skill>"));
        }
        if raw.starts_with("http://") || raw.starts_with("https://") {
            if raw.contains(&format!("{WELL_KNOWN_PATH}/"))
                && let Some(id) = well_known(raw)
            {
                return Ok(id);
            }
            return Ok(Identifier::Url(raw.to_string()));
        }
        if let Some(rest) = raw.strip_prefix("tap:") {
            let (tap, path) = rest
                .split_once('/')
                .ok_or_else(|| bad("expected tap:<tap name>/<path>"))?;
            if tap.is_empty() || path.is_empty() {
                return Err(bad("expected tap:<tap name>/<path>"));
            }
            return Ok(Identifier::Tap {
                tap: tap.to_string(),
                path: path.trim_matches('/').to_string(),
            });
        }
        let gh = raw.strip_prefix("github/").unwrap_or(raw);
        let parts: Vec<&str> = gh.split('/').filter(|p| !p.is_empty()).collect();
        if parts.len() >= 3 {
            if parts.iter().any(|p| *p == ".." || *p == ".") {
                return Err(bad("`..` in a path"));
            }
            return Ok(Identifier::GitHub {
                repo: format!("{}/{}", parts[0], parts[1]),
                path: parts[2..].join("/"),
            });
        }
        if raw.contains('/') {
            return Err(bad(
                "expected <owner>/<repo>/<path>, well-known:<url>, a URL, tap:<name>/<path> or a skill name",
            ));
        }
        Ok(Identifier::Name(raw.to_string()))
    }

    /// The canonical text form, as lock.json records it.
    pub fn render(&self) -> String {
        match self {
            Identifier::WellKnown { base, skill } => format!("well-known:{base}/{skill}"),
            Identifier::Url(url) => url.clone(),
            Identifier::GitHub { repo, path } => format!("{repo}/{path}"),
            Identifier::Tap { tap, path } => format!("tap:{tap}/{path}"),
            Identifier::Name(name) => name.clone(),
        }
    }
}

/// `<base …/.well-known/skills>/<skill>[/SKILL.md]` or `<…>/index.json#<skill>`.
fn well_known(url: &str) -> Option<Identifier> {
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        return None;
    }
    let (clean, fragment) = match url.split_once('#') {
        Some((c, f)) => (c, Some(f)),
        None => (url, None),
    };
    if let Some(base) = clean.strip_suffix("/index.json") {
        let skill = fragment.filter(|f| !f.is_empty())?;
        return Some(Identifier::WellKnown {
            base: base.to_string(),
            skill: skill.to_string(),
        });
    }
    let skill_url = clean
        .strip_suffix("/SKILL.md")
        .unwrap_or(clean)
        .trim_end_matches('/');
    let (base, skill) = skill_url.rsplit_once('/')?;
    if !base.ends_with(WELL_KNOWN_PATH) || skill.is_empty() {
        return None;
    }
    Some(Identifier::WellKnown {
        base: base.to_string(),
        skill: skill.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(s: &str) -> Identifier {
        Identifier::parse(s).unwrap_or(Identifier::Name("<error>".into()))
    }

    #[test]
    fn forms() {
        assert_eq!(
            id("well-known:https://x.dev/.well-known/skills/pdf"),
            Identifier::WellKnown {
                base: "https://x.dev/.well-known/skills".into(),
                skill: "pdf".into()
            }
        );
        assert_eq!(
            id("https://x.dev/.well-known/skills/pdf/SKILL.md").render(),
            "well-known:https://x.dev/.well-known/skills/pdf"
        );
        assert_eq!(
            id("https://x.dev/a/SKILL.md"),
            Identifier::Url("https://x.dev/a/SKILL.md".into())
        );
        assert_eq!(
            id("github/openai/skills/skills/.curated/pdf").render(),
            "openai/skills/skills/.curated/pdf"
        );
        assert_eq!(id("tap:mine/tools/pdf").render(), "tap:mine/tools/pdf");
        assert_eq!(id("pdf"), Identifier::Name("pdf".into()));
        assert!(Identifier::parse("a/b").is_err());
        assert!(Identifier::parse("a/b/../c").is_err());
    }
}
