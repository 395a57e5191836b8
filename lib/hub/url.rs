//! A plain URL: a `SKILL.md` (the skill is that one file) or a `.tar.gz` of a skill folder.
//! Nothing to search; trust is community. The name comes from the frontmatter `name` when it
//! is a valid skill name, else from the URL.

use serde_json::{Map, Value};

use super::HubError;
use super::archive;
use super::bundle::Bundle;
use super::identifier::Identifier;
use super::net::Net;
use super::source::{Get, SkillMeta, Source, frontmatter_fields};
use crate::guard::Trust;

pub struct UrlSource<G = Net> {
    pub net: G,
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

impl<G: Get> Source for UrlSource<G> {
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
    use crate::hub::source::tests::Canned;

    fn targz(entries: &[(&str, &str)]) -> Vec<u8> {
        let mut builder = tar::Builder::new(Vec::new());
        for (path, text) in entries {
            let mut header = tar::Header::new_gnu();
            header.set_size(text.len() as u64);
            header.set_mode(0o644);
            builder
                .append_data(&mut header, path, text.as_bytes())
                .expect("tar member");
        }
        let tar = builder.into_inner().expect("tar");
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, &tar).expect("gzip");
        gz.finish().expect("gzip end")
    }

    fn source(net: Canned) -> UrlSource<Canned> {
        UrlSource { net }
    }

    fn fetched(net: Canned, url: &str) -> Bundle {
        match source(net).fetch(&Identifier::Url(url.into())) {
            Ok(bundle) => bundle,
            Err(e) => panic!("{url} should fetch: {e}"),
        }
    }

    fn fetch_error(net: Canned, url: &str) -> HubError {
        match source(net).fetch(&Identifier::Url(url.into())) {
            Ok(bundle) => panic!("{url} should fail, fetched {bundle:?}"),
            Err(e) => e,
        }
    }

    fn names(bundle: &Bundle) -> Vec<&str> {
        bundle.files.iter().map(|(r, _)| r.as_str()).collect()
    }

    #[test]
    fn names_from_urls() {
        assert_eq!(slug("https://x.dev/skills/pdf-tools/SKILL.md"), "pdf-tools");
        assert_eq!(slug("https://x.dev/dl/pdf.tar.gz?v=2"), "pdf");
        assert!(!valid_name("skill"));
        assert!(!valid_name("Pdf"));
        assert!(valid_name("pdf_tools-2"));
    }

    #[test]
    fn slugs() {
        assert_eq!(
            slug("https://x.dev/skills/Pdf-Tools/skill.md#top"),
            "pdf-tools"
        );
        assert_eq!(slug("https://x.dev/skills/pdf/"), "pdf");
        assert_eq!(slug("https://x.dev/a/pdf.tgz"), "pdf");
        assert_eq!(slug("https://x.dev/a/pdf.zip#x"), "pdf");
        assert_eq!(slug("https://x.dev/a/notes.md"), "notes");
        assert_eq!(slug("https://x.dev/a/notes.txt"), "notes.txt");
        assert_eq!(slug("https://x.dev/SKILL.md"), "x.dev");
        assert_eq!(slug(""), "");
    }

    #[test]
    fn valid_names_start_lowercase_then_lowercase_digits_dashes_underscores() {
        for good in ["p", "pdf", "a1", "a-b", "a_b", "pdf_tools-2"] {
            assert!(valid_name(good), "{good}");
        }
        for bad in [
            "",
            "1pdf",
            "-pdf",
            "_pdf",
            "pdf!",
            "pdf tools",
            "pdF",
            "pdf.md",
            "é",
        ] {
            assert!(!valid_name(bad), "{bad}");
        }
    }

    #[test]
    fn sentinel_names_are_refused() {
        for sentinel in ["skill", "readme", "index", "unnamed-skill"] {
            assert!(!valid_name(sentinel), "{sentinel}");
        }
        assert!(valid_name("skills"));
    }

    #[test]
    fn names_may_be_64_bytes_long_not_65() {
        let longest = format!("a{}", "b".repeat(63));
        assert!(valid_name(&longest));
        assert!(!valid_name(&format!("{longest}c")));
    }

    #[test]
    fn archives_by_extension_before_any_query_or_fragment() {
        for archive in [
            "https://x.dev/a.tar.gz",
            "https://x.dev/a.tgz?v=1",
            "https://x.dev/a.zip#frag",
        ] {
            assert!(is_archive(archive), "{archive}");
        }
        for plain in [
            "https://x.dev/SKILL.md",
            "https://x.dev/a.tar.gz.md",
            "https://x.dev/a?f=x.zip",
            "https://x.dev/a#x.tgz",
            "https://x.dev/a.gz",
        ] {
            assert!(!is_archive(plain), "{plain}");
        }
    }

    #[test]
    fn the_source_serves_plain_urls_and_searches_nothing() {
        let s = source(Canned::new());
        assert_eq!(s.name(), "url");
        assert!(s.serves(&Identifier::Url("https://x.dev/SKILL.md".into())));
        assert!(!s.serves(&Identifier::Name("pdf".into())));
        assert!(!s.serves(&Identifier::GitHub {
            repo: "a/b".into(),
            path: "c".into()
        }));
        assert_eq!(s.search("pdf", 10).expect("no search"), Vec::new());
    }

    #[test]
    fn a_skill_md_url_is_the_whole_skill() {
        let url = "https://x.dev/skills/pdf-tools/SKILL.md";
        let text = "---\nname: pdf\ndescription: d\n---\nbody\n";
        let net = Canned::new().reply_full(url, "https://cdn.x.dev/pdf/SKILL.md", 200, &[], text);
        let bundle = fetched(net, url);
        assert_eq!(bundle.name, "pdf");
        assert_eq!(
            bundle.files,
            vec![("SKILL.md".to_string(), text.as_bytes().to_vec())]
        );
        assert_eq!(bundle.source, "url");
        assert_eq!(bundle.identifier, url);
        assert_eq!(bundle.trust, Trust::Community);
        assert_eq!(
            Value::Object(bundle.metadata),
            serde_json::json!({
                "url": url,
                "source_url": "https://cdn.x.dev/pdf/SKILL.md",
            })
        );
    }

    #[test]
    fn the_url_names_the_skill_when_the_frontmatter_does_not() {
        let url = "https://x.dev/skills/pdf-tools/SKILL.md";
        for text in [
            "# no frontmatter\n",
            "---\nname: Pdf Tools\n---\n",
            "---\nname: readme\n---\n",
        ] {
            let bundle = fetched(Canned::new().reply(url, 200, text), url);
            assert_eq!(bundle.name, "pdf-tools", "{text}");
        }
    }

    #[test]
    fn no_valid_name_anywhere_is_an_error() {
        let url = "https://x.dev/skills/README.md";
        let err = fetch_error(Canned::new().reply(url, 200, "# hi\n"), url);
        assert!(matches!(err, HubError::Invalid(_)), "{err:?}");
        assert_eq!(
            err.to_string(),
            "https://x.dev/skills/README.md: no valid skill name in the frontmatter or the URL"
        );
    }

    #[test]
    fn an_http_error_status_is_reported_with_the_url() {
        let url = "https://x.dev/pdf/SKILL.md";
        for status in [404, 500, 302, 199] {
            let err = fetch_error(
                Canned::new().reply(url, status, "---\nname: pdf\n---\n"),
                url,
            );
            assert!(
                matches!(err, HubError::Status { ref url, status: s } if url == "https://x.dev/pdf/SKILL.md" && s == status),
                "{err:?}"
            );
        }
    }

    #[test]
    fn network_errors_pass_through() {
        let url = "https://x.dev/pdf/SKILL.md";
        let net = Canned::new().fail(url, |u| HubError::TimedOut { url: u.into() });
        let err = fetch_error(net, url);
        assert!(
            matches!(err, HubError::TimedOut { ref url } if url == "https://x.dev/pdf/SKILL.md"),
            "{err:?}"
        );
    }

    #[test]
    fn an_archive_url_is_unpacked() {
        let url = "https://x.dev/dl/pdf-tools.tar.gz?v=2";
        let body = targz(&[
            ("pdf-tools/notes.md", "---\nname: notes\n---\n"),
            ("pdf-tools/SKILL.md", "---\nname: pdf\n---\n"),
        ]);
        let bundle = fetched(Canned::new().reply(url, 200, &body), url);
        assert_eq!(names(&bundle), ["notes.md", "SKILL.md"]);
        // The SKILL.md frontmatter names it, not the first file's.
        assert_eq!(bundle.name, "pdf");
        assert_eq!(bundle.identifier, url);
    }

    #[test]
    fn a_gzip_body_is_unpacked_whatever_the_url() {
        let url = "https://x.dev/download?id=7";
        let body = targz(&[("SKILL.md", "---\nname: pdf\n---\n"), ("a.md", "a")]);
        let bundle = fetched(Canned::new().reply(url, 200, &body), url);
        assert_eq!(names(&bundle), ["SKILL.md", "a.md"]);
        assert_eq!(bundle.name, "pdf");
    }

    #[test]
    fn an_archive_url_must_hold_an_archive() {
        let url = "https://x.dev/dl/pdf.tar.gz";
        let err = fetch_error(Canned::new().reply(url, 200, "---\nname: pdf\n---\n"), url);
        assert_eq!(
            err.to_string(),
            "https://x.dev/dl/pdf.tar.gz: not a gzip archive"
        );
    }

    #[test]
    fn an_archive_without_a_skill_md_is_refused() {
        let url = "https://x.dev/dl/pdf.tar.gz";
        let body = targz(&[("README.md", "---\nname: pdf\n---\n")]);
        let err = fetch_error(Canned::new().reply(url, 200, &body), url);
        assert!(matches!(err, HubError::Invalid(_)), "{err:?}");
        assert_eq!(
            err.to_string(),
            "https://x.dev/dl/pdf.tar.gz: the archive has no SKILL.md"
        );
    }

    #[test]
    fn other_identifiers_are_not_found_here() {
        let id = Identifier::Name("pdf".into());
        let err = source(Canned::new()).fetch(&id).expect_err("not a URL");
        assert!(
            matches!(err, HubError::NotFound(ref m) if m == "pdf"),
            "{err:?}"
        );
    }
}
