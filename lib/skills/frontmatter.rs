//! SKILL.md frontmatter: the YAML between the `---` fences, parsed exactly as Hermes's
//! `parse_frontmatter` does (YAML 1.1, naive `key: value` fallback on a YAML error), plus the
//! facts a linter needs to explain what Hermes will make of it.

use super::limits::MAX_DESCRIPTION_CHARS;
use crate::yaml::{self, Mapping, Trap, Value, YamlError};

/// The closing fence in `text`, as the byte range Python's `\n---\s*\n` matches first: a
/// newline, three hyphens, then a run of whitespace (Unicode's, plus the ASCII separator
/// controls U+001C-U+001F that Python's `\s` also matches) up to its last newline, the
/// `*` being greedy. Hand-written rather than a regex: every scan and listing reads each
/// SKILL.md's fences, and building and running a Unicode regex cost more than the search.
fn closing_fence(text: &str) -> Option<(usize, usize)> {
    let mut from = 0;
    while let Some(found) = memchr::memmem::find(&text.as_bytes()[from..], b"\n---") {
        let start = from + found;
        let after = start + 4;
        let mut end = None;
        for (at, c) in text[after..].char_indices() {
            if !(c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)) {
                break;
            }
            if c == '\n' {
                end = Some(after + at + 1);
            }
        }
        if let Some(end) = end {
            return Some((start, end));
        }
        from = start + 1;
    }
    None
}

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
    let (close_start, close_end) = closing_fence(after_open)?;
    let yaml = &after_open[..close_start];
    let body = &after_open[close_end..];
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

/// `parse(text).name()`, without building the whole mapping when the frontmatter is plain
/// enough to be read without a parser (see [`plain_name`]): the scanner wants only the name,
/// and parsing the YAML was a tenth of a scan.
pub fn name(text: &str) -> Option<String> {
    if let Some(found) = fences(text)
        && let Some(name) = plain_name(found.yaml)
    {
        return name;
    }
    parse(text).name().map(str::to_string)
}

/// The `name` of frontmatter YAML, when the YAML lies within a plain subset that certainly
/// parses: top-level `key: value` lines whose values are plain words, quoted strings closed on
/// their line, block scalars (`|`, `>-`, …) or indented blocks of `- item` / `key: value`
/// lines, nested to any depth; comments and blank lines. `Some(None)` when such YAML has no
/// `name`; `None` when the YAML leaves the subset (anything else: the parser decides, and a
/// YAML error sends Hermes to its line-splitting fallback, which reads quotes differently).
fn plain_name(yaml: &str) -> Option<Option<String>> {
    if yaml.chars().any(|c| !is_plain_char(c)) {
        return None;
    }
    let lines: Vec<&str> = yaml
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    if lines.iter().any(|l| l.contains('\r')) {
        return None;
    }
    let mut name: Option<Option<String>> = None;
    let mut at = 0;
    while at < lines.len() {
        let line = lines[at];
        at += 1;
        if line.trim_start_matches(' ').is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, value) = top_level_pair(line)?;
        let value = value.trim_matches(' ');
        let block_end = lines[at..]
            .iter()
            .position(|l| !l.is_empty() && !l.starts_with(' '))
            .map_or(lines.len(), |n| at + n);
        let block = &lines[at..block_end];
        let is_name = key == "name";
        if is_name && name.is_some() {
            return None;
        }
        if is_name {
            if value.is_empty() || value.starts_with(['|', '>']) || !all_blank(block) {
                return None;
            }
            name = Some(Some(scalar_text(value)?));
        } else if !entry_is_plain(value, block) {
            return None;
        }
        at = block_end;
    }
    Some(name.unwrap_or(None))
}

/// Characters YAML reads as printable text, without the ones that are line breaks in
/// YAML 1.1 (NEL, the line and paragraph separators) or a byte-order mark, and without the
/// tab: where a tab may stand depends on the column it falls in (in a block scalar's first
/// line it made the YAML path fail and Hermes fall back to its line parser, which keeps
/// quotes), so any tab leaves the YAML to the parser.
fn is_plain_char(c: char) -> bool {
    matches!(c, '\n' | '\r' | ' '..='~' | '\u{a0}'..='\u{2027}' | '\u{202a}'..='\u{d7ff}' | '\u{e000}'..='\u{fefe}' | '\u{ff00}'..='\u{fffd}' | '\u{10000}'..)
}

/// A top-level `key: value` (or `key:`) line with a plain key.
fn top_level_pair(line: &str) -> Option<(&str, &str)> {
    let (key, value) = line.split_once(':')?;
    let key_ok = key
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_')
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    (key_ok && (value.is_empty() || value.starts_with(' '))).then_some((key, value))
}

/// The string a one-line scalar value reads as, when it is certainly a string: a plain word
/// (YAML 1.1 resolves it to a string), or a quoted string closed on its line (optionally
/// followed by a comment). `None` for anything else.
fn scalar_text(value: &str) -> Option<String> {
    if value.contains('\t') {
        return None;
    }
    let after_quote = |rest: &str| {
        let rest = rest.trim_start_matches(' ');
        rest.is_empty() || (rest.starts_with('#') && rest.len() < value.len())
    };
    if let Some(inner) = value.strip_prefix('"') {
        let close = inner.find('"')?;
        let (text, rest) = (&inner[..close], &inner[close + 1..]);
        if text.contains('\\') || !after_quote(rest) || !rest.is_empty() && !rest.starts_with(' ') {
            return None;
        }
        return Some(text.to_string());
    }
    if let Some(inner) = value.strip_prefix('\'') {
        let mut text = String::new();
        let mut chars = inner.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            if c != '\'' {
                text.push(c);
                continue;
            }
            if chars.peek().is_some_and(|&(_, next)| next == '\'') {
                chars.next();
                text.push('\'');
                continue;
            }
            let rest = &inner[i + 1..];
            return (after_quote(rest) && (rest.is_empty() || rest.starts_with(' ')))
                .then_some(text);
        }
        return None;
    }
    is_plain_word(value).then(|| value.to_string())
}

/// A plain scalar that YAML 1.1 reads as exactly this string.
fn is_plain_word(value: &str) -> bool {
    const NOT_STRINGS: &[&str] = &["y", "n", "yes", "no", "true", "false", "on", "off", "null"];
    value
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic())
        && is_plain_token(value)
        && !NOT_STRINGS.iter().any(|w| value.eq_ignore_ascii_case(w))
}

/// The lines under a `key:` with no value: `- item` lines, or `key: value` lines, all at one
/// indentation, each value a plain word or a quoted string on its line, a block scalar, or
/// (after a `key:`) such a block again, indented deeper.
fn nested_block_is_plain(block: &[&str]) -> bool {
    let mut indent = None;
    let mut sequence = None;
    let mut at = 0;
    while at < block.len() {
        let line = block[at];
        at += 1;
        let content = line.trim_start_matches(' ');
        if content.is_empty() || content.starts_with('#') {
            continue;
        }
        let here = line.len() - content.len();
        if *indent.get_or_insert(here) != here {
            return false;
        }
        let (is_item, value) = match content.strip_prefix("- ") {
            Some(item) => (true, item),
            None => match top_level_pair(content) {
                Some((_, value)) => (false, value),
                None => return false,
            },
        };
        if *sequence.get_or_insert(is_item) != is_item {
            return false;
        }
        let value = value.trim_matches(' ');
        // The lines after this one indented deeper: its value, if it has none on the line.
        let deeper_end = block[at..]
            .iter()
            .position(|l| {
                let content = l.trim_start_matches(' ');
                !content.is_empty() && l.len() - content.len() <= here
            })
            .map_or(block.len(), |n| at + n);
        let deeper = &block[at..deeper_end];
        // An item holds a word or nothing; a key's value may nest (metadata, as
        // `requires:` / `  mcp:` / `    - rube`).
        let plain = match is_item {
            true => all_blank(deeper) && (value.is_empty() || value_is_plain(value)),
            false => entry_is_plain(value, deeper),
        };
        if !plain {
            return false;
        }
        at = deeper_end;
    }
    true
}

/// Whether a `key:` entry certainly parses, given its value on the line (trimmed) and the
/// lines after it indented deeper: no value and such a block under it (or nothing), a block
/// scalar, or a one-line value with nothing under it.
fn entry_is_plain(value: &str, block: &[&str]) -> bool {
    if value.is_empty() {
        nested_block_is_plain(block)
    } else if value.starts_with(['|', '>']) {
        block_scalar_is_plain(value, block)
    } else {
        all_blank(block) && value_is_plain(value)
    }
}

/// Whether every line holds only spaces.
fn all_blank(lines: &[&str]) -> bool {
    lines.iter().all(|l| l.trim_start_matches(' ').is_empty())
}

/// A one-line value that certainly parses (whatever it resolves to): a quoted string closed
/// on its line, a plain scalar that starts with no indicator and holds no `: `, or a flow
/// sequence of such words (`[a, b]`).
fn value_is_plain(value: &str) -> bool {
    if value.starts_with(['"', '\'']) {
        return scalar_text(value).is_some();
    }
    if let Some(items) = value.strip_prefix('[').and_then(|v| v.strip_suffix(']')) {
        return items
            .split(',')
            .all(|item| is_plain_token(item.trim_matches(' ')) && !item.contains([':', '#']));
    }
    is_plain_token(value)
}

/// A plain scalar (in block context) that parses: no indicator first, no `: ` or ` #`
/// inside, no `:` last, no tab.
fn is_plain_token(value: &str) -> bool {
    const INDICATORS: &[char] = &[
        '-', '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@',
        '`',
    ];
    value
        .chars()
        .next()
        .is_some_and(|c| !INDICATORS.contains(&c))
        && !value.contains(": ")
        && !value.contains(" #")
        && !value.contains('\t')
        && !value.ends_with(':')
        && !value.contains(['[', ']', '{', '}'])
}

/// A block scalar: a bare header (`|`, `>`, with an optional chomping sign and comment) and
/// lines indented at least as far as its first line; no leading line of spaces only.
fn block_scalar_is_plain(header: &str, block: &[&str]) -> bool {
    let (indicator, comment) = header.split_at(header.len().min(2));
    let indicator = indicator.trim_end_matches(' ');
    let header_ok = matches!(indicator, "|" | ">" | "|-" | ">-" | "|+" | ">+")
        && (header.len() == indicator.len() || {
            let rest = if indicator.len() == 2 {
                comment
            } else {
                &header[1..]
            };
            rest.trim_start_matches(' ').is_empty()
                || rest.starts_with(' ') && rest.trim_start_matches(' ').starts_with('#')
        });
    if !header_ok {
        return false;
    }
    let mut indent = None;
    for line in block {
        let content = line.trim_start_matches(' ');
        let here = line.len() - content.len();
        match indent {
            None if content.is_empty() => {
                if !line.is_empty() {
                    return false;
                }
            }
            None => indent = Some(here),
            Some(indent) => {
                if !content.is_empty() && here < indent {
                    return false;
                }
            }
        }
    }
    true
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

    /// The hand-written closing fence finds what the regex it replaces (Python's pattern,
    /// with the separator controls Rust's `\s` lacks) finds, on texts made of the pieces that
    /// matter: newlines, hyphens, ASCII, Unicode and separator-control whitespace, letters.
    #[test]
    fn the_closing_fence_is_the_regexs() {
        let regex = regex::Regex::new(r"\n---[\s\x1c-\x1f]*\n").expect("regex");
        let pieces = [
            "\n", "\n", "\n---", "\n---", "-", "---", " ", "\t", "\r", "\u{a0}", "\u{2028}",
            "\u{1c}", "\u{85}", "x", "é",
        ];
        let mut random = crate::testing::XorShift::new(0x9e37_79b9_7f4a_7c15);
        let mut found = 0;
        for _ in 0..20_000 {
            let length = 1 + random.next() % 14;
            let text: String = (0..length)
                .map(|_| pieces[(random.next() % pieces.len() as u64) as usize])
                .collect();
            let want = regex.find(&text).map(|m| (m.start(), m.end()));
            assert_eq!(closing_fence(&text), want, "{text:?}");
            found += usize::from(want.is_some());
        }
        assert!(found > 5_000, "{found} texts with a fence");
    }

    /// The shortcut answers as the parser does, on frontmatter built to trip it: every way a
    /// `name` line can mean something else, or be overridden by another line.
    #[test]
    fn the_name_shortcut_agrees_with_the_parser() {
        let yamls = [
            "name: demo\ndescription: Does things.",
            "name: demo-skill_2\r\ndescription: x\r",
            "name: yes",
            "name: Off",
            "name: null",
            "name: 12",
            "name: .inf",
            "name: demo # a comment",
            "name: a: b",
            "name: a:",
            "name:demo",
            "name : demo",
            "name: demo\n  continued",
            "name: demo\n\n  continued",
            "name: demo\n# comment\ndescription: x",
            "name: demo\nname: other",
            "name: demo\nmetadata:\n  name: inner",
            "name: demo\n\"name\": quoted",
            "name: demo\n'name': quoted",
            "name: demo\ndescription: \"multi\n  line\"",
            "description: 'starts\nname: hidden'",
            "description: |\n  block\nname: demo",
            "description: >\n  folded\nname: demo",
            "description: [a,\nname: b]",
            "description: {a: 1,\nname: b}",
            "base: &b x\nname: *b",
            "name: !!str demo",
            "name: demo\n? complex\n: key",
            "- item\nname: demo",
            "- name: demo",
            "name: demo\n\tdescription: tab",
            "%YAML 1.1\nname: demo",
            "name: demo\n--- x",
            "name: demo\n...",
            "name: café",
            "name: demo\ndescription: don't: stop",
            "description: it's fine\nname: demo",
            "name: Demo Skill\ndescription: Uses name: as a word",
            "name: demo\n  name: indented",
            "name: demo\ndescription: a\n  name: in a continuation",
            "name: demo\nrequires:\n  mcp:\n    - rube",
            "name: demo\nrequires:\n  mcp:\n  - rube",
            "name: demo\nmetadata:\n  hermes:\n    tags: [a, b]\n    name: inner\n  version: 1",
            "name: demo\nmetadata:\n  hermes:\n    tags: [a, b]\n   version: 1",
            "name: demo\nmetadata:\n  hermes:\n    tags: a\n      more",
            "name: demo\nmetadata:\n  hermes:\n    note: |\n      block\n       text\n  version: 1",
            "name: demo\nmetadata:\n  hermes:\n    note: |\n       block\n      less\n",
            "name: demo\nmetadata:\n  hermes:\n  # comment\n    tags: a",
            "name: demo\nmetadata:\n  - item:\n      name: x",
            "metadata:\n  a:\n    b:\n      c: 'd: e'\nname: deep",
            "metadata:\n  a:\n    b: \"x\ny\"\nname: deep",
            "name: demo\ndescription: |\n \t tab after the indent\n  more",
            "",
        ];
        for yaml in yamls {
            for text in [
                format!("---\n{yaml}\n---\nbody"),
                format!("\u{feff}---\n{yaml}\n---\nbody"),
                format!("\u{feff}\u{feff}---\n{yaml}\n---\nbody"),
                format!("---\n{yaml}\n"),
            ] {
                assert_eq!(name(&text).as_deref(), parse(&text).name(), "{text:?}");
            }
        }
        assert_eq!(
            plain_name("name: demo\ndescription: Does things."),
            Some(Some("demo".to_string()))
        );
        assert_eq!(plain_name("description: x"), Some(None));
        // It exists to spare the scanner the parser: most real frontmatter takes it.
        let sample =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/skills-sample");
        let (mut skills, mut short) = (0, 0);
        for path in crate::skills::discover::skill_files(&sample).files {
            let text = std::fs::read_to_string(&path).expect("sample skill");
            skills += 1;
            short += usize::from(fences(&text).and_then(|f| plain_name(f.yaml)).is_some());
        }
        assert!(
            skills >= 30 && short * 10 >= skills * 9,
            "{short} of {skills}"
        );
        assert_eq!(plain_name("name: yes"), None);
        assert_eq!(
            plain_name("name: demo\nrequires:\n  mcp:\n    - rube\n  env: [A, B]"),
            Some(Some("demo".to_string()))
        );
        assert_eq!(
            plain_name("name: demo\nrequires:\n  mcp:\n   - rube\n  - x"),
            None
        );
    }

    /// Issue 42's frontmatter: a tab after the indent of a folded scalar's first line sends
    /// Hermes to its line parser, which keeps the quotes around the name; the shortcut must
    /// not read the name as YAML would.
    #[test]
    fn a_tab_in_a_block_scalar_leaves_the_name_to_the_parser() {
        let text = "---\nname: \"migrate\"\ndescription: >-\n \t Migrate from Cypress or \
                    Selenium to Playwright. Use when user mentions\n  \"cypress\", \"selenium\", \
                    \"migrate tests\", \"convert tests\", \"switch to\n  playwright\", \"move from \
                    cypress\", or \"replace selenium\".\n---\nbody\n";
        let parsed = parse(text);
        assert!(
            matches!(parsed.status, Status::Invalid(_)),
            "{:?}",
            parsed.status
        );
        assert_eq!(parsed.name(), Some("\"migrate\""));
        assert_eq!(name(text).as_deref(), Some("\"migrate\""));
        assert_eq!(plain_name(fences(text).expect("fences").yaml), None);
    }

    /// Nested blocks of every shape the shortcut reads, and of shapes next to them that it
    /// must leave to the parser (uneven indents, continuation lines, items holding
    /// mappings, tabs, quotes left open): the shortcut answers as the parser does.
    #[test]
    fn the_name_shortcut_agrees_with_the_parser_on_generated_nesting() {
        let keys = ["name", "a", "b-c", "metadata", "- item", "-", "#"];
        let values = [
            "", " demo", " x y", " 'q'", " \"d\"", " [a, b]", " |", " >-", " yes", " 'open",
            " a: b", "\tx", " {a: 1}",
        ];
        let mut random = crate::testing::XorShift::new(0x51f1_5eed_0bad_cafe);
        let (mut shortcut, mut nested) = (0, 0);
        for _ in 0..20_000 {
            let mut yaml = String::new();
            let mut indent = 0usize;
            for _ in 0..1 + random.next() % 7 {
                // Mostly where a well-formed block would go next, sometimes anywhere.
                indent = match random.next() % 8 {
                    0..=3 => indent,
                    4 | 5 => indent + 2,
                    6 => indent.saturating_sub(2),
                    _ => (random.next() % 7) as usize,
                };
                let key = keys[(random.next() % keys.len() as u64) as usize];
                let value = match random.next() % 3 {
                    0 => "",
                    _ => values[(random.next() % values.len() as u64) as usize],
                };
                let colon = if key.starts_with(['-', '#']) { "" } else { ":" };
                yaml.push_str(&format!("{}{key}{colon}{value}\n", " ".repeat(indent)));
            }
            let text = format!("---\n{yaml}---\nbody");
            if fences(&text).and_then(|f| plain_name(f.yaml)).is_some() {
                shortcut += 1;
                nested += usize::from(yaml.contains("\n    "));
            }
            assert_eq!(name(&text).as_deref(), parse(&text).name(), "{text:?}");
        }
        assert!(
            shortcut > 1_500 && nested > 100,
            "{shortcut} took the shortcut, {nested} nested"
        );
    }

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
