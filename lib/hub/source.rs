//! What every source offers: search, inspect (metadata of one skill) and fetch (the skill's
//! files). Errors are returned, never swallowed: a search reports them per source, an
//! install stops on them.

use serde::Serialize;

use super::HubError;
use super::bundle::Bundle;
use super::identifier::Identifier;
use super::net::{Net, Response};
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

/// The one request the network sources make: [`Net::get`] in use, a table of answers in the
/// unit tests (`tests::Canned`), so a source's logic is tested without a network.
pub trait Get: Send + Sync + 'static {
    /// GET `url` with `headers`; any status is returned, not an error.
    fn get(&self, url: &str, headers: &[(&str, String)]) -> Result<Response, HubError>;
}

impl Get for Net {
    fn get(&self, url: &str, headers: &[(&str, String)]) -> Result<Response, HubError> {
        Net::get(self, url, headers)
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

#[cfg(test)]
pub(in crate::hub) mod tests {
    use std::collections::{HashMap, VecDeque};
    use std::sync::Mutex;

    use serde_json::{Map, Value};

    use super::*;

    type Answer = Box<dyn Fn(&str) -> Result<Response, HubError> + Send + Sync>;
    /// A request: its URL and headers.
    type Request = (String, Vec<(String, String)>);

    /// A home in a fresh temporary folder (kept while the guard lives).
    pub(in crate::hub) fn temp_home() -> (tempfile::TempDir, crate::home::Home) {
        let dir = tempfile::tempdir().expect("temp dir");
        let home = crate::home::Home::at(dir.path());
        (dir, home)
    }

    /// Canned HTTP answers by URL, in order; the last answer for a URL repeats. A URL without
    /// one is `NotFound("no canned answer for <url>")`. Every request is recorded.
    #[derive(Default)]
    pub(in crate::hub) struct Canned {
        answers: Mutex<HashMap<String, VecDeque<Answer>>>,
        asked: Mutex<Vec<Request>>,
    }

    impl Canned {
        pub(in crate::hub) fn new() -> Canned {
            Canned::default()
        }

        fn push(self, url: &str, answer: Answer) -> Canned {
            self.answers
                .lock()
                .expect("answers lock")
                .entry(url.to_string())
                .or_default()
                .push_back(answer);
            self
        }

        /// An answer with `status` and `body`, from `url` itself.
        pub(in crate::hub) fn reply(
            self,
            url: &str,
            status: u16,
            body: impl AsRef<[u8]>,
        ) -> Canned {
            self.reply_full(url, url, status, &[], body)
        }

        /// An answer from `final_url` (after redirects) with `headers`.
        pub(in crate::hub) fn reply_full(
            self,
            url: &str,
            final_url: &str,
            status: u16,
            headers: &[(&str, &str)],
            body: impl AsRef<[u8]>,
        ) -> Canned {
            let final_url = final_url.to_string();
            let body = body.as_ref().to_vec();
            let mut map = reqwest::header::HeaderMap::new();
            for (name, value) in headers {
                map.insert(
                    reqwest::header::HeaderName::from_bytes(name.as_bytes()).expect("header name"),
                    reqwest::header::HeaderValue::from_str(value).expect("header value"),
                );
            }
            self.push(
                url,
                Box::new(move |_| {
                    Ok(Response {
                        status,
                        url: final_url.clone(),
                        headers: map.clone(),
                        body: body.clone(),
                    })
                }),
            )
        }

        /// A failed request: `error` makes the error from the URL.
        pub(in crate::hub) fn fail(self, url: &str, error: fn(&str) -> HubError) -> Canned {
            self.push(url, Box::new(move |u| Err(error(u))))
        }

        /// The URLs asked, in order.
        pub(in crate::hub) fn asked(&self) -> Vec<String> {
            self.asked
                .lock()
                .expect("asked lock")
                .iter()
                .map(|(u, _)| u.clone())
                .collect()
        }

        /// The headers of the `i`th request.
        pub(in crate::hub) fn headers(&self, i: usize) -> Vec<(String, String)> {
            self.asked.lock().expect("asked lock")[i].1.clone()
        }
    }

    impl Get for Canned {
        fn get(&self, url: &str, headers: &[(&str, String)]) -> Result<Response, HubError> {
            self.asked.lock().expect("asked lock").push((
                url.to_string(),
                headers
                    .iter()
                    .map(|(n, v)| (n.to_string(), v.clone()))
                    .collect(),
            ));
            let mut answers = self.answers.lock().expect("answers lock");
            let Some(queue) = answers.get_mut(url) else {
                return Err(HubError::NotFound(format!("no canned answer for {url}")));
            };
            if queue.len() > 1 {
                let answer = queue.pop_front().expect("queue has two answers");
                return answer(url);
            }
            queue.front().expect("queue has one answer")(url)
        }
    }

    fn bundle(files: Vec<(&str, &str)>) -> Bundle {
        let mut metadata = Map::new();
        metadata.insert("url".into(), Value::String("https://x.dev".into()));
        Bundle {
            name: "folder-name".into(),
            files: files
                .into_iter()
                .map(|(r, t)| (r.to_string(), t.as_bytes().to_vec()))
                .collect(),
            source: "github".into(),
            identifier: "acme/skills/folder-name".into(),
            trust: Trust::Trusted,
            metadata,
        }
    }

    #[test]
    fn frontmatter_fields_are_the_name_and_description_when_they_are_text() {
        assert_eq!(
            frontmatter_fields("---\nname: pdf\ndescription: Reads PDFs.\n---\nbody\n"),
            (Some("pdf".into()), Some("Reads PDFs.".into()))
        );
        assert_eq!(
            frontmatter_fields("---\ndescription: Only this.\n---\n"),
            (None, Some("Only this.".into()))
        );
        assert_eq!(
            frontmatter_fields("---\nname: pdf\n---\n"),
            (Some("pdf".into()), None)
        );
        assert_eq!(
            frontmatter_fields("---\nname: [a, b]\ndescription: {k: v}\n---\n"),
            (None, None)
        );
        assert_eq!(frontmatter_fields("# no frontmatter\n"), (None, None));
        assert_eq!(frontmatter_fields(""), (None, None));
    }

    #[test]
    fn meta_of_reads_the_skill_md_frontmatter() {
        let b = bundle(vec![
            ("notes.md", "---\nname: wrong\n---\n"),
            (
                "SKILL.md",
                "---\nname: pdf-tools\ndescription: Reads PDFs.\n---\n",
            ),
        ]);
        assert_eq!(
            meta_of(&b),
            SkillMeta {
                name: "pdf-tools".into(),
                description: "Reads PDFs.".into(),
                source: "github".into(),
                identifier: "acme/skills/folder-name".into(),
                trust_level: Trust::Trusted,
            }
        );
    }

    #[test]
    fn meta_of_falls_back_to_the_bundle_name_and_an_empty_description() {
        for files in [
            vec![("SKILL.md", "# Just a body\n")],
            vec![("README.md", "---\nname: r\n---\n")],
        ] {
            assert_eq!(
                meta_of(&bundle(files)),
                SkillMeta {
                    name: "folder-name".into(),
                    description: String::new(),
                    source: "github".into(),
                    identifier: "acme/skills/folder-name".into(),
                    trust_level: Trust::Trusted,
                }
            );
        }
    }

    struct Fixed(Result<Bundle, &'static str>);

    impl Source for Fixed {
        fn name(&self) -> String {
            "fixed".into()
        }
        fn search(&self, _: &str, _: usize) -> Result<Vec<SkillMeta>, HubError> {
            Ok(Vec::new())
        }
        fn serves(&self, _: &Identifier) -> bool {
            true
        }
        fn fetch(&self, _: &Identifier) -> Result<Bundle, HubError> {
            self.0.clone().map_err(|m| HubError::NotFound(m.into()))
        }
    }

    #[test]
    fn inspect_is_the_metadata_of_the_fetched_bundle() {
        let id = Identifier::Name("pdf".into());
        let source = Fixed(Ok(bundle(vec![(
            "SKILL.md",
            "---\nname: pdf\ndescription: d\n---\n",
        )])));
        let meta = source.inspect(&id).expect("the bundle is fetched");
        assert_eq!(
            meta,
            SkillMeta {
                name: "pdf".into(),
                description: "d".into(),
                source: "github".into(),
                identifier: "acme/skills/folder-name".into(),
                trust_level: Trust::Trusted,
            }
        );
        let err = Fixed(Err("gone"))
            .inspect(&id)
            .expect_err("nothing to inspect");
        assert!(
            matches!(err, HubError::NotFound(ref m) if m == "gone"),
            "{err:?}"
        );
    }

    #[test]
    fn skill_meta_serializes_with_its_five_keys() {
        let meta = SkillMeta {
            name: "pdf".into(),
            description: "d".into(),
            source: "tap".into(),
            identifier: "tap:mine/pdf".into(),
            trust_level: Trust::Community,
        };
        assert_eq!(
            serde_json::to_value(&meta).expect("serializes"),
            serde_json::json!({
                "name": "pdf",
                "description": "d",
                "source": "tap",
                "identifier": "tap:mine/pdf",
                "trust_level": "community",
            })
        );
    }
}
