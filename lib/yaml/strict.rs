//! What StrictYAML refuses in a document that YAML itself allows. The agentskills.io
//! reference validator (`skills-ref`) reads frontmatter with StrictYAML, so a skill using any
//! of these fails `agentskills validate` while Hermes (PyYAML) reads it fine.

use super::libyaml::{EventData, Parser};

/// One construct StrictYAML refuses, at a 0-based line of the document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StrictIssue {
    pub line: usize,
    pub what: String,
}

/// The constructs StrictYAML refuses: flow-style lists and mappings (`[a, b]`, `{a: 1}`),
/// anchors, aliases and explicit tags. Nested flow collections are reported once, at the
/// outermost. A document that does not parse gives none (the YAML error is reported
/// elsewhere).
pub fn strict_issues(text: &str) -> Vec<StrictIssue> {
    let mut parser = Parser::new(text.as_bytes());
    let mut issues = Vec::new();
    let mut flow_depth = 0usize;
    loop {
        let Ok(event) = parser.next_event() else {
            return Vec::new();
        };
        let line = event.start.line;
        let mut note = |what: String| issues.push(StrictIssue { line, what });
        match event.data {
            EventData::StreamEnd => break,
            EventData::SequenceStart { anchor, tag, flow } => {
                flow_depth = enter(flow, flow_depth, "a flow-style list `[…]`", &mut note);
                describe_node(anchor, tag, &mut note);
            }
            EventData::MappingStart { anchor, tag, flow } => {
                flow_depth = enter(flow, flow_depth, "a flow-style mapping `{…}`", &mut note);
                describe_node(anchor, tag, &mut note);
            }
            EventData::SequenceEnd | EventData::MappingEnd => {
                flow_depth = flow_depth.saturating_sub(1);
            }
            EventData::Scalar { anchor, tag, .. } => describe_node(anchor, tag, &mut note),
            EventData::Alias { anchor } => note(format!("an alias `*{anchor}`")),
            _ => {}
        }
    }
    issues
}

/// The flow depth inside a collection that starts here, noting the outermost flow one.
fn enter(flow: bool, depth: usize, kind: &str, note: &mut impl FnMut(String)) -> usize {
    if flow && depth == 0 {
        note(kind.to_string());
    }
    if flow || depth > 0 { depth + 1 } else { 0 }
}

fn describe_node(anchor: Option<String>, tag: Option<String>, note: &mut impl FnMut(String)) {
    if let Some(anchor) = anchor {
        note(format!("an anchor `&{anchor}`"));
    }
    if let Some(tag) = tag {
        note(format!("a tag `{tag}`"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn whats(text: &str) -> Vec<(usize, String)> {
        strict_issues(text)
            .into_iter()
            .map(|i| (i.line, i.what))
            .collect()
    }

    #[test]
    fn block_style_is_clean() {
        assert_eq!(whats("name: x\ntools:\n  - a\n  - b\nmeta:\n  k: v\n"), []);
        assert_eq!(whats("description: \"[not a list]\"\n"), []);
    }

    #[test]
    fn flow_collections_are_reported_once_at_the_outermost() {
        assert_eq!(
            whats("name: x\nmcp: [rube, {a: [1]}]\nm: {k: v}\n"),
            [
                (1, "a flow-style list `[…]`".to_string()),
                (2, "a flow-style mapping `{…}`".to_string())
            ]
        );
    }

    #[test]
    fn anchors_aliases_and_tags() {
        assert_eq!(
            whats("a: &x 1\nb: *x\nc: !!str 2\n"),
            [
                (0, "an anchor `&x`".to_string()),
                (1, "an alias `*x`".to_string()),
                (2, "a tag `tag:yaml.org,2002:str`".to_string())
            ]
        );
    }

    #[test]
    fn broken_yaml_gives_nothing() {
        assert_eq!(whats("a: [1, 2\n"), []);
    }
}
