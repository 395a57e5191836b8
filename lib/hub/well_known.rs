//! A site serving `/.well-known/skills/index.json`:
//! `{"skills":[{"name","description","files":["SKILL.md",…]}]}`, each file at
//! `<base>/<skill>/<file>`. Identifiers are `well-known:<base>/<skill>`; trust is community.

use serde_json::{Map, Value};

use super::HubError;
use super::bundle::{self, Bundle};
use super::identifier::{Identifier, WELL_KNOWN_PATH};
use super::net::Net;
use super::source::{Get, SkillMeta, Source};
use crate::guard::Trust;

pub struct WellKnownSource<G = Net> {
    /// `<site>/.well-known/skills`; `None` serves any well-known identifier (installs of a
    /// site that is not configured).
    pub base: Option<String>,
    pub net: G,
}

impl<G: Get> WellKnownSource<G> {
    /// The source for a site root (`https://example.com`) or a full base URL.
    pub fn for_site(site: &str, net: G) -> WellKnownSource<G> {
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

impl<G: Get> Source for WellKnownSource<G> {
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::hub::source::tests::Canned;

    const BASE: &str = "https://x.dev/.well-known/skills";
    const INDEX: &str = "https://x.dev/.well-known/skills/index.json";

    fn site(net: Canned) -> WellKnownSource<Canned> {
        WellKnownSource {
            base: Some(BASE.into()),
            net,
        }
    }

    fn id(skill: &str) -> Identifier {
        Identifier::WellKnown {
            base: BASE.into(),
            skill: skill.into(),
        }
    }

    fn index(value: Value) -> Canned {
        Canned::new().reply(INDEX, 200, value.to_string())
    }

    fn fetched(source: &WellKnownSource<Canned>, skill: &str) -> Bundle {
        match source.fetch(&id(skill)) {
            Ok(bundle) => bundle,
            Err(e) => panic!("{skill} should fetch: {e}"),
        }
    }

    fn fetch_error(source: &WellKnownSource<Canned>, skill: &str) -> HubError {
        match source.fetch(&id(skill)) {
            Ok(bundle) => panic!("{skill} should fail, fetched {bundle:?}"),
            Err(e) => e,
        }
    }

    #[test]
    fn for_site_takes_a_site_root_or_a_base_url() {
        for given in [
            "https://x.dev",
            "https://x.dev/",
            "https://x.dev/.well-known/skills",
            "https://x.dev/.well-known/skills/",
            "https://x.dev/.well-known/skills/index.json",
        ] {
            let source = WellKnownSource::for_site(given, Canned::new());
            assert_eq!(source.base.as_deref(), Some(BASE), "{given}");
        }
        let source = WellKnownSource::for_site("https://x.dev/team/", Canned::new());
        assert_eq!(
            source.base.as_deref(),
            Some("https://x.dev/team/.well-known/skills")
        );
    }

    #[test]
    fn names() {
        assert_eq!(site(Canned::new()).name(), "well-known:https://x.dev");
        let any = WellKnownSource {
            base: None,
            net: Canned::new(),
        };
        assert_eq!(any.name(), "well-known:*");
        let odd = WellKnownSource {
            base: Some("https://x.dev/skills".into()),
            net: Canned::new(),
        };
        assert_eq!(odd.name(), "well-known:https://x.dev/skills");
    }

    #[test]
    fn serves_its_own_base_or_any_when_it_has_none() {
        let other = Identifier::WellKnown {
            base: "https://y.dev/.well-known/skills".into(),
            skill: "pdf".into(),
        };
        let mine = site(Canned::new());
        assert!(mine.serves(&id("pdf")));
        assert!(!mine.serves(&other));
        assert!(!mine.serves(&Identifier::Url(format!("{BASE}/pdf"))));
        let any = WellKnownSource {
            base: None,
            net: Canned::new(),
        };
        assert!(any.serves(&id("pdf")));
        assert!(any.serves(&other));
        assert!(!any.serves(&Identifier::Name("pdf".into())));
    }

    #[test]
    fn search_lists_the_index() {
        let net = index(json!({"skills": [
            {"name": "pdf", "description": "Reads PDFs.", "files": ["SKILL.md"]},
            {"name": "bare"},
            {"description": "no name"},
            {"name": 7},
            {"name": ".hidden"},
            {"name": "a/b"},
            {"name": "docs", "description": 3},
        ]}));
        let source = site(net);
        let meta = |name: &str, description: &str| SkillMeta {
            name: name.into(),
            description: description.into(),
            source: "well-known".into(),
            identifier: format!("well-known:{BASE}/{name}"),
            trust_level: Trust::Community,
        };
        assert_eq!(
            source.search("anything", 10).expect("searched"),
            vec![
                meta("pdf", "Reads PDFs."),
                meta("bare", ""),
                meta("docs", "")
            ]
        );
        assert_eq!(source.net.asked(), [INDEX]);
        assert_eq!(
            source.net.headers(0),
            [("Accept".to_string(), "application/json".to_string())]
        );
    }

    #[test]
    fn the_source_for_any_site_searches_nothing() {
        let any = WellKnownSource {
            base: None,
            net: Canned::new(),
        };
        assert_eq!(any.search("pdf", 10).expect("nothing"), Vec::new());
        assert_eq!(any.net.asked(), Vec::<String>::new());
    }

    #[test]
    fn a_bad_index_is_an_error() {
        let err = site(Canned::new().reply(INDEX, 404, "{}"))
            .search("", 10)
            .expect_err("404");
        assert!(
            matches!(err, HubError::Status { ref url, status: 404 } if url == INDEX),
            "{err:?}"
        );
        let err = site(index(json!({"skill": []})))
            .search("", 10)
            .expect_err("no list");
        assert!(matches!(err, HubError::Invalid(_)), "{err:?}");
        assert_eq!(err.to_string(), format!("{INDEX}: no \"skills\" list"));
        let err = site(index(json!({"skills": {"name": "pdf"}})))
            .search("", 10)
            .expect_err("not a list");
        assert_eq!(err.to_string(), format!("{INDEX}: no \"skills\" list"));
        let err = site(Canned::new().reply(INDEX, 200, "<html>"))
            .search("", 10)
            .expect_err("not JSON");
        assert!(matches!(err, HubError::Invalid(_)), "{err:?}");
        assert!(
            err.to_string().starts_with(&format!("{INDEX}: not JSON (")),
            "{err}"
        );
    }

    #[test]
    fn fetch_gets_every_listed_file() {
        let net = index(json!({"skills": [
            {"name": "other", "files": ["SKILL.md"]},
            {"name": "pdf", "files": ["SKILL.md", "./references//api.md", 4]},
        ]}))
        .reply(
            &format!("{BASE}/pdf/SKILL.md"),
            200,
            "---\nname: pdf\n---\n",
        )
        .reply(&format!("{BASE}/pdf/references/api.md"), 200, "api");
        let source = site(net);
        let bundle = fetched(&source, "pdf");
        assert_eq!(bundle.name, "pdf");
        assert_eq!(
            bundle.files,
            vec![
                ("SKILL.md".to_string(), b"---\nname: pdf\n---\n".to_vec()),
                ("references/api.md".to_string(), b"api".to_vec()),
            ]
        );
        assert_eq!(bundle.source, "well-known");
        assert_eq!(bundle.identifier, format!("well-known:{BASE}/pdf"));
        assert_eq!(bundle.trust, Trust::Community);
        assert_eq!(
            Value::Object(bundle.metadata),
            json!({
                "index_url": INDEX,
                "base_url": BASE,
                "endpoint": format!("{BASE}/pdf"),
                "files": ["SKILL.md", "./references//api.md"],
            })
        );
        assert_eq!(
            source.net.asked(),
            [
                INDEX.to_string(),
                format!("{BASE}/pdf/SKILL.md"),
                format!("{BASE}/pdf/references/api.md"),
            ]
        );
    }

    #[test]
    fn without_a_file_list_the_skill_is_its_skill_md() {
        for entry in [
            json!({"name": "pdf"}),
            json!({"name": "pdf", "files": []}),
            json!({"name": "pdf", "files": [1, 2]}),
            json!({"name": "pdf", "files": "SKILL.md"}),
        ] {
            let net =
                index(json!({"skills": [entry]})).reply(&format!("{BASE}/pdf/SKILL.md"), 200, "s");
            let bundle = fetched(&site(net), "pdf");
            assert_eq!(
                bundle.files,
                vec![("SKILL.md".to_string(), b"s".to_vec())],
                "{entry}"
            );
            assert_eq!(bundle.metadata["files"], json!(["SKILL.md"]), "{entry}");
        }
    }

    #[test]
    fn fetch_refusals() {
        let net = index(json!({"skills": [
            {"name": "pdf", "files": ["SKILL.md", "../../etc/passwd"]},
        ]}))
        .reply(&format!("{BASE}/pdf/SKILL.md"), 200, "s");
        let source = site(net);
        let err = fetch_error(&source, "pdf");
        assert!(matches!(err, HubError::Refused(_)), "{err:?}");
        assert_eq!(
            err.to_string(),
            format!("well-known:{BASE}/pdf: unsafe file path \"../../etc/passwd\"")
        );

        let err = fetch_error(&source, "missing");
        assert!(matches!(err, HubError::NotFound(_)), "{err:?}");
        assert_eq!(
            err.to_string(),
            format!("{BASE}/index.json lists no skill \"missing\"")
        );

        // A name that is no single path component is refused before any request.
        let fresh = site(Canned::new());
        let err = fetch_error(&fresh, "..");
        assert!(matches!(err, HubError::Refused(_)), "{err:?}");
        assert_eq!(err.to_string(), "unsafe skill name \"..\"");
        assert_eq!(fresh.net.asked(), Vec::<String>::new());

        let err = fresh
            .fetch(&Identifier::Name("pdf".into()))
            .expect_err("not well-known");
        assert!(
            matches!(err, HubError::NotFound(ref m) if m == "pdf"),
            "{err:?}"
        );
    }

    #[test]
    fn a_missing_file_is_an_http_error() {
        let net = index(json!({"skills": [{"name": "pdf", "files": ["SKILL.md", "a.md"]}]}))
            .reply(&format!("{BASE}/pdf/SKILL.md"), 200, "s")
            .reply(&format!("{BASE}/pdf/a.md"), 404, "");
        let err = fetch_error(&site(net), "pdf");
        let url = format!("{BASE}/pdf/a.md");
        assert!(
            matches!(err, HubError::Status { url: ref u, status: 404 } if *u == url),
            "{err:?}"
        );
    }

    #[test]
    fn a_skill_may_list_500_files_not_501() {
        let listed = |n: usize| -> Vec<String> {
            std::iter::once("SKILL.md".to_string())
                .chain((1..n).map(|i| format!("f{i}")))
                .collect()
        };
        let mut net = index(json!({"skills": [
            {"name": "ok", "files": listed(500)},
            {"name": "big", "files": listed(501)},
        ]}));
        for rel in listed(500) {
            net = net.reply(&format!("{BASE}/ok/{rel}"), 200, "");
        }
        let source = site(net);
        assert_eq!(fetched(&source, "ok").files.len(), 500);
        let before = source.net.asked().len();
        let err = fetch_error(&source, "big");
        assert!(matches!(err, HubError::Refused(_)), "{err:?}");
        assert_eq!(
            err.to_string(),
            format!("well-known:{BASE}/big: lists more than 500 files")
        );
        // Refused from the index alone.
        assert_eq!(source.net.asked().len(), before + 1);
    }

    #[test]
    fn a_skill_may_hold_32_mib_not_one_byte_more() {
        let half = vec![b'x'; 16 << 20];
        let net = index(json!({"skills": [
            {"name": "ok", "files": ["SKILL.md", "a"]},
            {"name": "big", "files": ["SKILL.md", "b"]},
        ]}))
        .reply(&format!("{BASE}/ok/SKILL.md"), 200, &half)
        .reply(&format!("{BASE}/ok/a"), 200, &half)
        .reply(&format!("{BASE}/big/SKILL.md"), 200, &half)
        .reply(&format!("{BASE}/big/b"), 200, [&half[..], b"x"].concat());
        let source = site(net);
        let total: usize = fetched(&source, "ok")
            .files
            .iter()
            .map(|(_, b)| b.len())
            .sum();
        assert_eq!(total, 32 << 20);
        let err = fetch_error(&source, "big");
        assert!(
            matches!(err, HubError::TooLarge { ref what, limit: 33_554_432 } if *what == format!("well-known:{BASE}/big")),
            "{err:?}"
        );
    }
}
