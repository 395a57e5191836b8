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
        // Any other scheme (`ftp://…`, `file://…`) is not an `owner/repo/path`.
        if raw.contains("://") {
            return Err(bad("only http and https URLs are fetched"));
        }
        if let Some(rest) = raw.strip_prefix("tap:") {
            let (tap, path) = rest
                .split_once('/')
                .ok_or_else(|| bad("expected tap:<tap name>/<path>"))?;
            // Trimmed first, so that `tap:mine//` names no path either.
            let path = path.trim_matches('/');
            if tap.is_empty() || path.is_empty() {
                return Err(bad("expected tap:<tap name>/<path>"));
            }
            return Ok(Identifier::Tap {
                tap: tap.to_string(),
                path: path.to_string(),
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
        if !base.ends_with(WELL_KNOWN_PATH) {
            return None;
        }
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

    fn parsed(raw: &str) -> Identifier {
        match Identifier::parse(raw) {
            Ok(id) => id,
            Err(e) => panic!("{raw:?} should parse: {e}"),
        }
    }

    fn refused(raw: &str) -> String {
        match Identifier::parse(raw) {
            Ok(id) => panic!("{raw:?} should be refused, parsed as {id:?}"),
            Err(e) => e.to_string(),
        }
    }

    fn well_known(base: &str, skill: &str) -> Identifier {
        Identifier::WellKnown {
            base: base.into(),
            skill: skill.into(),
        }
    }

    #[test]
    fn an_empty_or_blank_identifier_is_refused() {
        assert_eq!(refused(""), "empty skill identifier");
        assert_eq!(refused("  \t"), "empty skill identifier");
    }

    #[test]
    fn surrounding_space_is_trimmed() {
        assert_eq!(parsed("  pdf \n"), Identifier::Name("pdf".into()));
    }

    #[test]
    fn plain_urls_over_http_and_https() {
        assert_eq!(
            parsed("http://x.dev/a/SKILL.md"),
            Identifier::Url("http://x.dev/a/SKILL.md".into())
        );
        assert_eq!(
            parsed("https://x.dev/a.tar.gz"),
            Identifier::Url("https://x.dev/a.tar.gz".into())
        );
        // Not a URL scheme the hub knows.
        assert_eq!(
            refused("ftp://x.dev"),
            "bad identifier \"ftp://x.dev\": only http and https URLs are fetched"
        );
    }

    #[test]
    fn urls_under_the_well_known_path_are_well_known_identifiers() {
        assert_eq!(
            parsed("https://x.dev/.well-known/skills/pdf"),
            well_known("https://x.dev/.well-known/skills", "pdf")
        );
        assert_eq!(
            parsed("http://x.dev/.well-known/skills/pdf/"),
            well_known("http://x.dev/.well-known/skills", "pdf")
        );
        assert_eq!(
            parsed("https://x.dev/.well-known/skills/pdf/SKILL.md"),
            well_known("https://x.dev/.well-known/skills", "pdf")
        );
        assert_eq!(
            parsed("https://x.dev/.well-known/skills/index.json#pdf"),
            well_known("https://x.dev/.well-known/skills", "pdf")
        );
        assert_eq!(
            parsed("https://x.dev/sub/.well-known/skills/pdf#frag"),
            well_known("https://x.dev/sub/.well-known/skills", "pdf")
        );
    }

    #[test]
    fn a_url_under_the_well_known_path_that_names_no_skill_stays_a_url() {
        // The index itself, without a fragment naming a skill.
        for raw in [
            "https://x.dev/.well-known/skills/index.json",
            "https://x.dev/.well-known/skills/index.json#",
            // A folder deeper than one skill.
            "https://x.dev/.well-known/skills/a/b",
            "https://x.dev/.well-known/skills/",
        ] {
            assert_eq!(parsed(raw), Identifier::Url(raw.into()), "{raw}");
        }
    }

    #[test]
    fn a_url_that_only_looks_well_known_stays_a_url() {
        // `index.json#skill` outside the well-known path is not a well-known index.
        assert_eq!(
            parsed("https://x.dev/a/index.json#pdf"),
            Identifier::Url("https://x.dev/a/index.json#pdf".into())
        );
        assert_eq!(
            parsed("https://x.dev/.well-known/skillsets/pdf"),
            Identifier::Url("https://x.dev/.well-known/skillsets/pdf".into())
        );
    }

    #[test]
    fn the_well_known_prefix() {
        assert_eq!(
            parsed("well-known:http://x.dev/.well-known/skills/pdf/SKILL.md"),
            well_known("http://x.dev/.well-known/skills", "pdf")
        );
        assert_eq!(
            parsed("well-known:https://x.dev/.well-known/skills/index.json#pdf"),
            well_known("https://x.dev/.well-known/skills", "pdf")
        );
        let expected = "expected well-known:<base url>/<skill>";
        for raw in [
            "well-known:",
            "well-known:x.dev/.well-known/skills/pdf",
            "well-known:ftp://x.dev/.well-known/skills/pdf",
            "well-known:https://x.dev/skills/pdf",
            "well-known:https://x.dev/.well-known/skills/index.json",
            "well-known:https://x.dev/.well-known/skills/index.json#",
            "well-known:https://x.dev/.well-known/skills",
        ] {
            assert_eq!(
                refused(raw),
                format!("bad identifier {raw:?}: {expected}"),
                "{raw}"
            );
        }
    }

    #[test]
    fn tap_identifiers() {
        assert_eq!(
            parsed("tap:mine/tools/pdf/"),
            Identifier::Tap {
                tap: "mine".into(),
                path: "tools/pdf".into()
            }
        );
        assert_eq!(
            parsed("tap:mine//pdf"),
            Identifier::Tap {
                tap: "mine".into(),
                path: "pdf".into()
            }
        );
        for raw in ["tap:mine", "tap:/pdf", "tap:mine/", "tap:/", "tap:mine//"] {
            assert_eq!(
                refused(raw),
                format!("bad identifier {raw:?}: expected tap:<tap name>/<path>"),
                "{raw}"
            );
        }
    }

    #[test]
    fn github_identifiers() {
        assert_eq!(
            parsed("openai/skills/skills/.curated/pdf"),
            Identifier::GitHub {
                repo: "openai/skills".into(),
                path: "skills/.curated/pdf".into()
            }
        );
        // Empty segments are dropped, so a doubled or trailing slash counts for nothing.
        assert_eq!(
            parsed("github/acme//tools/pdf/"),
            Identifier::GitHub {
                repo: "acme/tools".into(),
                path: "pdf".into()
            }
        );
        // Exactly three segments is the shortest GitHub identifier.
        assert_eq!(
            parsed("a/b/c"),
            Identifier::GitHub {
                repo: "a/b".into(),
                path: "c".into()
            }
        );
    }

    #[test]
    fn dot_segments_in_a_github_path_are_refused() {
        for raw in ["a/b/../c", "a/b/./c", "a/../b/c", "a/b/c/.."] {
            assert_eq!(
                refused(raw),
                format!("bad identifier {raw:?}: `..` in a path"),
                "{raw}"
            );
        }
        // Dots inside a segment are a name, not a dot segment.
        assert_eq!(
            parsed("a/b/.c/..d"),
            Identifier::GitHub {
                repo: "a/b".into(),
                path: ".c/..d".into()
            }
        );
    }

    #[test]
    fn fewer_than_three_segments_with_a_slash_are_refused() {
        let why = "expected <owner>/<repo>/<path>, well-known:<url>, a URL, tap:<name>/<path> or a skill name";
        for raw in ["a/b", "a//b", "/a/b/", "github/a/b", "a/"] {
            assert_eq!(
                refused(raw),
                format!("bad identifier {raw:?}: {why}"),
                "{raw}"
            );
        }
    }

    #[test]
    fn render_gives_the_canonical_form() {
        assert_eq!(
            well_known("https://x.dev/.well-known/skills", "pdf").render(),
            "well-known:https://x.dev/.well-known/skills/pdf"
        );
        assert_eq!(
            Identifier::Url("https://x.dev/a.tgz".into()).render(),
            "https://x.dev/a.tgz"
        );
        assert_eq!(
            Identifier::GitHub {
                repo: "a/b".into(),
                path: "c/d".into()
            }
            .render(),
            "a/b/c/d"
        );
        assert_eq!(
            Identifier::Tap {
                tap: "mine".into(),
                path: "c/d".into()
            }
            .render(),
            "tap:mine/c/d"
        );
        assert_eq!(Identifier::Name("pdf".into()).render(), "pdf");
    }

    #[test]
    fn other_schemes_and_an_index_outside_well_known_are_refused() {
        for raw in [
            "ftp://x/a/b",
            "file:///etc/skills/x",
            "well-known:https://example.com/foo/index.json#x",
        ] {
            let got = Identifier::parse(raw);
            assert!(matches!(got, Err(HubError::Invalid(_))), "{raw}: {got:?}");
        }
        assert_eq!(
            Identifier::parse("ftp://x/a/b").map_err(|e| e.to_string()),
            Err("bad identifier \"ftp://x/a/b\": only http and https URLs are fetched".into())
        );
        assert_eq!(
            Identifier::parse("well-known:https://example.com/.well-known/skills/index.json#pdf")
                .ok(),
            Some(Identifier::WellKnown {
                base: "https://example.com/.well-known/skills".into(),
                skill: "pdf".into()
            })
        );
        // Under /.well-known/skills/ a plain URL is the well-known form; an index URL
        // elsewhere stays a plain URL.
        assert_eq!(
            Identifier::parse("https://example.com/foo/index.json#x").ok(),
            Some(Identifier::Url(
                "https://example.com/foo/index.json#x".into()
            ))
        );
    }
}
