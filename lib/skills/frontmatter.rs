//! SKILL.md frontmatter: the YAML between the `---` fences, parsed exactly as Hermes's
//! `parse_frontmatter` does (YAML 1.1, naive `key: value` fallback on a YAML error), plus the
//! facts a linter needs to explain what Hermes will make of it.

use std::sync::LazyLock;

use regex::Regex;

use super::limits::MAX_DESCRIPTION_CHARS;
use crate::yaml::{self, Mapping, Trap, Value, YamlError};

/// The closing fence: Python's `\n---\s*\n`, where `\s` also matches the ASCII separator
/// controls U+001C-U+001F that Rust's `\s` does not.
static CLOSING_FENCE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\n---[\s\x1c-\x1f]*\n").expect("static regex"));

/// Where the frontmatter and the body are in a SKILL.md.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fences<'a> {
    /// The YAML text: from just after the opening `---` to the newline before the closing one.
    pub yaml: &'a str,
    /// Everything after the closing fence line(s).
    pub body: &'a str,
    /// 1-based line of the file where the body starts.
    pub body_line: usize,
}

/// How the frontmatter of a file reads.
#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    /// The file does not start with `---`.
    Missing,
    /// It opens with `---` but no closing `---` line follows.
    Unclosed,
    /// The YAML parsed into a mapping.
    Parsed,
    /// The YAML parsed, but into something other than a mapping (Hermes then sees no fields).
    NotMapping(&'static str),
    /// The YAML did not parse; Hermes falls back to splitting lines at the first `:`.
    Invalid(YamlError),
}

/// A parsed SKILL.md.
#[derive(Debug, Clone, PartialEq)]
pub struct Frontmatter<'a> {
    /// The fields Hermes sees (empty when there is no usable frontmatter).
    pub fields: Mapping,
    /// The body Hermes serves: the whole text when there is no closed frontmatter.
    pub body: &'a str,
    /// 1-based line of the file where `body` starts.
    pub body_line: usize,
    pub status: Status,
    /// Scalars that YAML 1.1 (Hermes) and YAML 1.2 read differently, with file line numbers.
    pub traps: Vec<Trap>,
    /// Whether a leading byte-order mark was stripped.
    pub had_bom: bool,
}

impl Frontmatter<'_> {
    /// A string field, when it is a string.
    pub fn str_field(&self, key: &str) -> Option<&str> {
        self.fields.get(key).and_then(Value::as_str)
    }

    /// `frontmatter.get("name", default)` as Hermes's `skills_list` reads it, when it is text.
    pub fn name(&self) -> Option<&str> {
        self.str_field("name")
    }

    pub fn description(&self) -> Option<&str> {
        self.str_field("description")
    }
}

/// Finds the fences as Hermes does: one leading BOM stripped, the text must start with `---`,
/// and the first `\n---\s*\n` after it closes. `None` when either fence is missing.
pub fn fences(text: &str) -> Option<Fences<'_>> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let after_open = text.strip_prefix("---")?;
    let close = CLOSING_FENCE.find(after_open)?;
    let yaml = &after_open[..close.start()];
    let body = &after_open[close.end()..];
    let consumed = &text[..text.len() - body.len()];
    Some(Fences {
        yaml,
        body,
        body_line: consumed.matches('\n').count() + 1,
    })
}

/// Parses a SKILL.md the way Hermes's `parse_frontmatter` does.
pub fn parse(text: &str) -> Frontmatter<'_> {
    let had_bom = text.starts_with('\u{feff}');
    let unbommed = text.strip_prefix('\u{feff}').unwrap_or(text);
    let no_frontmatter = |status| Frontmatter {
        fields: Mapping::new(),
        body: unbommed,
        body_line: 1,
        status,
        traps: Vec::new(),
        had_bom,
    };
    if !unbommed.starts_with("---") {
        return no_frontmatter(Status::Missing);
    }
    let Some(found) = fences(unbommed) else {
        return no_frontmatter(Status::Unclosed);
    };
    // The YAML text starts on line 1 of the file (right after the opening `---`), so YAML line
    // numbers are file line numbers.
    let (fields, status, traps) = match yaml::load_document(found.yaml, "<unicode string>") {
        Ok(doc) => match doc.value {
            Value::Map(map) => (map, Status::Parsed, doc.traps),
            Value::Null => (Mapping::new(), Status::Parsed, doc.traps),
            other => (
                Mapping::new(),
                Status::NotMapping(other.py_type_name()),
                doc.traps,
            ),
        },
        Err(err) => (naive_fields(found.yaml), Status::Invalid(err), Vec::new()),
    };
    Frontmatter {
        fields,
        body: found.body,
        body_line: found.body_line,
        status,
        traps,
        had_bom,
    }
}

/// Hermes's fallback for YAML that does not parse: each line holding a `:` is split at the
/// first one into a stripped key and a stripped string value.
fn naive_fields(yaml_text: &str) -> Mapping {
    let mut fields = Mapping::new();
    for (index, line) in yaml_text.trim().split('\n').enumerate() {
        if let Some((key, value)) = line.split_once(':') {
            fields.insert(
                Value::Str(key.trim().to_string()),
                Value::Str(value.trim().to_string()),
                index + 1,
            );
        }
    }
    fields
}

/// The skill name Hermes's curator and usage telemetry key a skill by (`_read_skill_name`):
/// not YAML — the first `name:` line between the first two `---` lines of the first 4000
/// characters, stripped of spaces and quotes; the directory name otherwise.
pub fn identity_name(text: &str, dir_name: &str) -> String {
    let prefix: String = text.chars().take(4000).collect();
    let mut inside = false;
    for line in prefix.split('\n') {
        let stripped = line.trim();
        if stripped == "---" {
            if inside {
                break;
            }
            inside = true;
            continue;
        }
        if inside && let Some(rest) = stripped.strip_prefix("name:") {
            let value = rest.trim().trim_matches(['"', '\'']);
            if !value.is_empty() {
                return value.to_string();
            }
        }
    }
    dir_name.to_string()
}

/// `skill_manage`'s validation of SKILL.md content (`_validate_frontmatter`), with its exact
/// error messages. `Ok` when Hermes would accept the content.
pub fn validate_for_write(content: &str) -> Result<(), String> {
    if content.trim().is_empty() {
        return Err("Content cannot be empty.".into());
    }
    let content = content.trim_start_matches('\u{feff}');
    if !content.starts_with("---") {
        return Err(
            "SKILL.md must start with YAML frontmatter (---). See existing skills for format."
                .into(),
        );
    }
    let Some(found) = fences(content) else {
        return Err(
            "SKILL.md frontmatter is not closed. Ensure you have a closing '---' line.".into(),
        );
    };
    let parsed = yaml::load(found.yaml, "<unicode string>")
        .map_err(|e| format!("YAML frontmatter parse error: {e}"))?;
    let Value::Map(map) = parsed else {
        return Err("Frontmatter must be a YAML mapping (key: value pairs).".into());
    };
    if !map.contains_key("name") {
        return Err("Frontmatter must include 'name' field.".into());
    }
    let Some(description) = map.get("description") else {
        return Err("Frontmatter must include 'description' field.".into());
    };
    if description.py_str().chars().count() > MAX_DESCRIPTION_CHARS {
        return Err(format!(
            "Description exceeds {MAX_DESCRIPTION_CHARS} characters."
        ));
    }
    if found.body.trim().is_empty() {
        return Err(
            "SKILL.md must have content after the frontmatter (instructions, procedures, etc.)."
                .into(),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_fields_and_body() {
        let fm = parse("---\nname: demo\ndescription: Does things.\n---\n# Demo\nbody\n");
        assert_eq!(fm.status, Status::Parsed);
        assert_eq!(fm.name(), Some("demo"));
        assert_eq!(fm.description(), Some("Does things."));
        assert_eq!(fm.body, "# Demo\nbody\n");
        assert_eq!(fm.body_line, 5);
    }

    #[test]
    fn bom_is_stripped_once() {
        let fm = parse("\u{feff}---\nname: a\n---\nx");
        assert!(fm.had_bom);
        assert_eq!(fm.name(), Some("a"));
        let twice = parse("\u{feff}\u{feff}---\nname: a\n---\nx");
        assert_eq!(twice.status, Status::Missing);
    }

    #[test]
    fn closing_fence_may_swallow_blank_lines() {
        let fm = parse("---\nname: a\n---  \n\n\nbody");
        assert_eq!(fm.body, "body");
        assert_eq!(fm.body_line, 6);
    }

    #[test]
    fn open_fence_only_needs_to_start_the_text() {
        let fm = parse("---foo: 1\nname: a\n---\nbody");
        assert_eq!(fm.status, Status::Parsed);
        assert_eq!(fm.fields.get("foo"), Some(&Value::Int(1)));
    }

    #[test]
    fn unclosed_and_missing() {
        assert_eq!(parse("---\nname: a\n").status, Status::Unclosed);
        assert_eq!(parse("# just markdown").status, Status::Missing);
        assert_eq!(parse("# just markdown").body, "# just markdown");
    }

    #[test]
    fn invalid_yaml_falls_back_to_naive_split() {
        let fm = parse("---\nname: a: b\ndescription: Use it: now\n---\nbody");
        assert!(matches!(fm.status, Status::Invalid(_)));
        assert_eq!(fm.name(), Some("a: b"));
        assert_eq!(fm.description(), Some("Use it: now"));
    }

    #[test]
    fn yaml11_traps_carry_file_lines() {
        let fm = parse("---\nname: a\ndescription: yes\n---\nbody");
        assert_eq!(fm.fields.get("description"), Some(&Value::Bool(true)));
        assert_eq!(fm.traps.len(), 1);
        assert_eq!(fm.traps[0].line, 3);
    }

    #[test]
    fn non_mapping_frontmatter_has_no_fields() {
        let fm = parse("---\n- a\n- b\n---\nbody");
        assert_eq!(fm.status, Status::NotMapping("list"));
        assert!(fm.fields.is_empty());
    }

    #[test]
    fn identity_name_is_not_yaml() {
        assert_eq!(identity_name("---\nname: foo # c\n---\n", "dir"), "foo # c");
        assert_eq!(identity_name("---\nname: \"q\"\n---\n", "dir"), "q");
        assert_eq!(
            identity_name("---\nmetadata:\n  name: nested\n---\n", "dir"),
            "nested"
        );
        assert_eq!(identity_name("no frontmatter", "dir"), "dir");
        assert_eq!(identity_name("---\nname:\n---\n", "dir"), "dir");
    }

    #[test]
    fn write_validation_messages() {
        let ok = "---\nname: a\ndescription: b\n---\nbody\n";
        assert_eq!(validate_for_write(ok), Ok(()));
        let cases = [
            ("  ", "Content cannot be empty."),
            (
                "no",
                "SKILL.md must start with YAML frontmatter (---). See existing skills for format.",
            ),
            (
                "---\nname: a\n",
                "SKILL.md frontmatter is not closed. Ensure you have a closing '---' line.",
            ),
            (
                "---\n- a\n---\nbody",
                "Frontmatter must be a YAML mapping (key: value pairs).",
            ),
            (
                "---\ndescription: b\n---\nbody",
                "Frontmatter must include 'name' field.",
            ),
            (
                "---\nname: a\n---\nbody",
                "Frontmatter must include 'description' field.",
            ),
            (
                "---\nname: a\ndescription: b\n---\n  \n",
                "SKILL.md must have content after the frontmatter (instructions, procedures, etc.).",
            ),
        ];
        for (content, want) in cases {
            assert_eq!(
                validate_for_write(content),
                Err(want.to_string()),
                "{content:?}"
            );
        }
        let long = format!("---\nname: a\ndescription: {}\n---\nbody", "d".repeat(1025));
        assert_eq!(
            validate_for_write(&long),
            Err("Description exceeds 1024 characters.".into())
        );
        assert!(
            validate_for_write("---\nname: [\n---\nbody")
                .expect_err("bad")
                .starts_with("YAML frontmatter parse error: ")
        );
    }
}
