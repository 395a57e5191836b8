//! Builds a [`Value`] from libyaml parser events, applying PyYAML's composer and
//! `SafeConstructor` rules: one document, anchors and aliases, merge keys, tags.

use std::collections::HashMap;
use std::fmt;

use super::libyaml::{EventData, Mark, ParseError, Parser, ScalarStyle};

use super::resolve::{self, Implicit};
use super::value::{Mapping, Value};

/// Nodes a document may hold after aliases are expanded. Hermes documents are small; past this
/// an alias bomb ("billion laughs") is the likely cause, and it is refused rather than built.
const MAX_NODES: usize = 200_000;
/// Nesting depth past which a document is refused instead of exhausting the stack.
const MAX_DEPTH: usize = 256;

/// A document that could not be loaded, in PyYAML's words where PyYAML has them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct YamlError {
    /// Where the text came from, as it appears in messages (a path, or `<unicode string>`).
    pub source_name: String,
    pub context: Option<String>,
    /// 1-based line and column of the context.
    pub context_mark: Option<(usize, usize)>,
    pub problem: String,
    /// 1-based line and column of the problem.
    pub problem_mark: Option<(usize, usize)>,
}

impl YamlError {
    /// The 1-based line the problem was found on.
    pub fn line(&self) -> Option<usize> {
        self.problem_mark
            .or(self.context_mark)
            .map(|(line, _)| line)
    }

    fn at(source_name: &str, problem: impl Into<String>, mark: Option<Mark>) -> YamlError {
        YamlError {
            source_name: source_name.to_string(),
            context: None,
            context_mark: None,
            problem: problem.into(),
            problem_mark: mark.map(one_based),
        }
    }

    fn with_context(mut self, context: impl Into<String>, mark: Mark) -> YamlError {
        self.context = Some(context.into());
        self.context_mark = Some(one_based(mark));
        self
    }
}

fn one_based(mark: Mark) -> (usize, usize) {
    (mark.line + 1, mark.column + 1)
}

/// Prints the way PyYAML's `MarkedYAMLError` does, so messages read the same as Hermes's.
impl fmt::Display for YamlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut lines = Vec::new();
        if let Some(context) = &self.context {
            lines.push(context.clone());
        }
        if let Some((line, column)) = self.context_mark
            && (self.problem_mark.is_none() || self.problem_mark != self.context_mark)
        {
            lines.push(format!(
                "  in \"{}\", line {line}, column {column}",
                self.source_name
            ));
        }
        lines.push(self.problem.clone());
        if let Some((line, column)) = self.problem_mark {
            lines.push(format!(
                "  in \"{}\", line {line}, column {column}",
                self.source_name
            ));
        }
        f.write_str(&lines.join("\n"))
    }
}

/// A plain scalar that YAML 1.1 (Python Hermes) and YAML 1.2 (most other tools) read differently.
#[derive(Debug, Clone, PartialEq)]
pub struct Trap {
    pub line: usize,
    pub column: usize,
    /// The scalar as written.
    pub text: String,
    /// What Python's `yaml.safe_load` makes of it.
    pub python: Value,
    /// What a YAML 1.2 core-schema loader makes of it.
    pub yaml12: Value,
}

/// A loaded document and the YAML 1.1 traps found on the way.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    pub value: Value,
    pub traps: Vec<Trap>,
}

/// Loads one YAML document as `yaml.safe_load` would. An empty stream is `Null`.
pub fn load(text: &str, source_name: &str) -> Result<Value, YamlError> {
    load_document(text, source_name).map(|doc| doc.value)
}

/// Loads one document and also reports the scalars YAML 1.1 and 1.2 read differently.
pub fn load_document(text: &str, source_name: &str) -> Result<Document, YamlError> {
    Composer::new(source_name).run(text.as_bytes())
}

enum Frame {
    Seq {
        items: Vec<Value>,
        anchor: Option<String>,
        tag: Option<String>,
        start: Mark,
    },
    Map {
        map: Mapping,
        /// Pairs from merge keys, applied before the explicit pairs when the mapping ends.
        merges: Vec<(Value, Value, usize)>,
        explicit: Vec<(Value, Value, usize)>,
        pending_key: Option<PendingKey>,
        anchor: Option<String>,
        tag: Option<String>,
        start: Mark,
    },
}

struct PendingKey {
    key: Value,
    line: usize,
    is_merge: bool,
}

struct Composer<'a> {
    source_name: &'a str,
    stack: Vec<Frame>,
    anchors: HashMap<String, (Value, usize)>,
    nodes: usize,
    traps: Vec<Trap>,
}

impl<'a> Composer<'a> {
    fn new(source_name: &'a str) -> Composer<'a> {
        Composer {
            source_name,
            stack: Vec::new(),
            anchors: HashMap::new(),
            nodes: 0,
            traps: Vec::new(),
        }
    }

    fn parse_error(&self, err: ParseError) -> YamlError {
        let mut out = YamlError::at(self.source_name, err.problem, Some(err.problem_mark));
        if let Some(context) = err.context {
            out = out.with_context(context, err.context_mark);
        }
        out
    }

    fn run(mut self, bytes: &[u8]) -> Result<Document, YamlError> {
        let mut parser = Parser::new(bytes);
        let mut root: Option<Value> = None;
        let mut documents = 0usize;
        let mut first_document = Mark::default();
        loop {
            let event = parser.next_event().map_err(|e| self.parse_error(e))?;
            let start = event.start;
            match event.data {
                EventData::StreamStart | EventData::DocumentEnd => {}
                EventData::StreamEnd => break,
                EventData::DocumentStart => {
                    documents += 1;
                    if documents > 1 {
                        return Err(YamlError::at(
                            self.source_name,
                            "but found another document",
                            Some(start),
                        )
                        .with_context("expected a single document in the stream", first_document));
                    }
                    first_document = start;
                    self.anchors.clear();
                }
                EventData::Alias { anchor } => {
                    let Some((value, size)) = self.anchors.get(&anchor).cloned() else {
                        return Err(YamlError::at(
                            self.source_name,
                            "found undefined alias",
                            Some(start),
                        ));
                    };
                    self.count_nodes(size, start)?;
                    if let Some(done) = self.push_value(value, start, false)? {
                        root = Some(done);
                    }
                }
                EventData::Scalar {
                    anchor,
                    tag,
                    value,
                    plain_implicit,
                    style,
                    ..
                } => {
                    self.count_nodes(1, start)?;
                    let plain = style == ScalarStyle::Plain && plain_implicit;
                    let (built, is_merge) =
                        self.construct_scalar(tag.as_deref(), &value, plain, start)?;
                    if let Some(anchor) = anchor {
                        self.anchors.insert(anchor, (built.clone(), 1));
                    }
                    if let Some(done) = self.push_value(built, start, is_merge)? {
                        root = Some(done);
                    }
                }
                EventData::SequenceStart { anchor, tag, .. } => {
                    self.check_collection_tag(tag.as_deref(), "seq", start)?;
                    self.open(start)?;
                    self.stack.push(Frame::Seq {
                        items: Vec::new(),
                        anchor,
                        tag,
                        start,
                    });
                }
                EventData::MappingStart { anchor, tag, .. } => {
                    self.check_collection_tag(tag.as_deref(), "map", start)?;
                    self.open(start)?;
                    self.stack.push(Frame::Map {
                        map: Mapping::new(),
                        merges: Vec::new(),
                        explicit: Vec::new(),
                        pending_key: None,
                        anchor,
                        tag,
                        start,
                    });
                }
                EventData::SequenceEnd | EventData::MappingEnd => {
                    let (value, anchor, node_start) = match self.stack.pop() {
                        Some(Frame::Seq {
                            items,
                            anchor,
                            tag,
                            start,
                        }) => (
                            self.finish_seq(items, tag.as_deref(), start)?,
                            anchor,
                            start,
                        ),
                        Some(Frame::Map {
                            mut map,
                            merges,
                            explicit,
                            anchor,
                            tag,
                            start,
                            ..
                        }) => {
                            for (key, value, line) in merges.into_iter().chain(explicit) {
                                map.insert(key, value, line);
                            }
                            (finish_map(map, tag.as_deref()), anchor, start)
                        }
                        None => continue,
                    };
                    if let Some(anchor) = anchor {
                        let size = count(&value);
                        self.anchors.insert(anchor, (value.clone(), size));
                    }
                    if let Some(done) = self.push_value(value, node_start, false)? {
                        root = Some(done);
                    }
                }
            }
        }
        Ok(Document {
            value: root.unwrap_or(Value::Null),
            traps: self.traps,
        })
    }

    fn open(&mut self, start: Mark) -> Result<(), YamlError> {
        self.count_nodes(1, start)?;
        if self.stack.len() >= MAX_DEPTH {
            return Err(YamlError::at(
                self.source_name,
                format!("document is nested deeper than {MAX_DEPTH} levels"),
                Some(start),
            ));
        }
        Ok(())
    }

    fn count_nodes(&mut self, added: usize, mark: Mark) -> Result<(), YamlError> {
        self.nodes = self.nodes.saturating_add(added);
        if self.nodes > MAX_NODES {
            return Err(YamlError::at(
                self.source_name,
                format!(
                    "document expands to more than {MAX_NODES} nodes (an alias bomb?); refusing to load it"
                ),
                Some(mark),
            ));
        }
        Ok(())
    }

    fn check_collection_tag(
        &self,
        tag: Option<&str>,
        kind: &str,
        mark: Mark,
    ) -> Result<(), YamlError> {
        match tag {
            None | Some("!") => Ok(()),
            Some(t) if t == format!("tag:yaml.org,2002:{kind}") => Ok(()),
            Some(t)
                if kind == "seq"
                    && matches!(t, "tag:yaml.org,2002:omap" | "tag:yaml.org,2002:pairs") =>
            {
                Ok(())
            }
            Some("tag:yaml.org,2002:set") if kind == "map" => Ok(()),
            Some(t) => Err(YamlError::at(
                self.source_name,
                format!("could not determine a constructor for the tag '{t}'"),
                Some(mark),
            )),
        }
    }

    /// Returns the value and whether it is the merge key `<<`.
    fn construct_scalar(
        &mut self,
        tag: Option<&str>,
        text: &str,
        plain: bool,
        mark: Mark,
    ) -> Result<(Value, bool), YamlError> {
        let fail = |problem: String| YamlError::at(self.source_name, problem, Some(mark));
        match tag {
            None | Some("!") if plain => {
                let kind = resolve::resolve_plain(text);
                if kind == Implicit::ValueTag {
                    // Only a mapping key survives this: PyYAML retags a `=` key as a string
                    // and has no constructor for it anywhere else.
                    return if self.expecting_key() {
                        Ok((Value::Str(text.to_string()), false))
                    } else {
                        Err(fail(
                            "could not determine a constructor for the tag 'tag:yaml.org,2002:value'".into(),
                        ))
                    };
                }
                if kind == Implicit::Merge && !self.expecting_key() {
                    return Err(fail(
                        "could not determine a constructor for the tag 'tag:yaml.org,2002:merge'"
                            .into(),
                    ));
                }
                let value = resolve::construct_implicit(kind, text).map_err(fail)?;
                self.note_trap(text, &value, mark);
                Ok((value, kind == Implicit::Merge))
            }
            None | Some("!") => Ok((Value::Str(text.to_string()), false)),
            Some("tag:yaml.org,2002:merge") => Ok((Value::Str(text.to_string()), true)),
            Some(full) => match resolve::construct_tagged(full, text) {
                Some(result) => Ok((result.map_err(fail)?, false)),
                None => Err(fail(format!(
                    "could not determine a constructor for the tag '{full}'"
                ))),
            },
        }
    }

    /// `!!omap` and `!!pairs` become lists of `[key, value]` pairs, as Python's lists of tuples.
    fn finish_seq(
        &self,
        items: Vec<Value>,
        tag: Option<&str>,
        start: Mark,
    ) -> Result<Value, YamlError> {
        if !matches!(
            tag,
            Some("tag:yaml.org,2002:omap" | "tag:yaml.org,2002:pairs")
        ) {
            return Ok(Value::Seq(items));
        }
        let mut pairs = Vec::with_capacity(items.len());
        for item in items {
            match item {
                Value::Map(map) if map.len() == 1 => {
                    pairs.extend(map.into_entries().map(|(k, v, _)| Value::Seq(vec![k, v])));
                }
                _ => {
                    return Err(YamlError::at(
                        self.source_name,
                        "expected a single mapping item",
                        Some(start),
                    )
                    .with_context("while constructing an ordered map", start));
                }
            }
        }
        Ok(Value::Seq(pairs))
    }

    /// Whether the next node completes a key (not a value) of the innermost mapping.
    fn expecting_key(&self) -> bool {
        matches!(
            self.stack.last(),
            Some(Frame::Map {
                pending_key: None,
                ..
            })
        )
    }

    fn note_trap(&mut self, text: &str, python: &Value, mark: Mark) {
        if text.is_empty() {
            return;
        }
        let yaml12 = resolve::yaml12_core(text);
        let same = match (python, &yaml12) {
            (Value::Float(a), Value::Float(b)) => a == b || (a.is_nan() && b.is_nan()),
            (a, b) => a == b,
        };
        if !same {
            let (line, column) = one_based(mark);
            self.traps.push(Trap {
                line,
                column,
                text: text.to_string(),
                python: python.clone(),
                yaml12,
            });
        }
    }

    /// Adds a finished node to its parent; returns it when it is the document root.
    fn push_value(
        &mut self,
        value: Value,
        mark: Mark,
        is_merge: bool,
    ) -> Result<Option<Value>, YamlError> {
        let source_name = self.source_name;
        match self.stack.last_mut() {
            None => Ok(Some(value)),
            Some(Frame::Seq { items, .. }) => {
                items.push(value);
                Ok(None)
            }
            Some(Frame::Map {
                merges,
                explicit,
                pending_key,
                start,
                ..
            }) => {
                let Some(key) = pending_key.take() else {
                    if matches!(value, Value::Seq(_) | Value::Map(_)) {
                        return Err(
                            YamlError::at(source_name, "found unhashable key", Some(mark))
                                .with_context("while constructing a mapping", *start),
                        );
                    }
                    *pending_key = Some(PendingKey {
                        key: value,
                        line: mark.line + 1,
                        is_merge,
                    });
                    return Ok(None);
                };
                if key.is_merge {
                    let mut pairs = merge_pairs(value).map_err(|problem| {
                        YamlError::at(source_name, problem, Some(mark))
                            .with_context("while constructing a mapping", *start)
                    })?;
                    merges.append(&mut pairs);
                } else {
                    explicit.push((key.key, value, key.line));
                }
                Ok(None)
            }
        }
    }
}

/// The pairs a merge key contributes, in PyYAML's order: for a list of mappings the later ones
/// come first, so that the earlier ones win.
fn merge_pairs(value: Value) -> Result<Vec<(Value, Value, usize)>, String> {
    match value {
        Value::Map(map) => Ok(map.into_entries().collect()),
        Value::Seq(items) => {
            let mut maps = Vec::with_capacity(items.len());
            for item in items {
                match item {
                    Value::Map(map) => maps.push(map),
                    other => {
                        return Err(format!(
                            "expected a mapping for merging, but found {}",
                            node_kind(&other)
                        ));
                    }
                }
            }
            Ok(maps
                .into_iter()
                .rev()
                .flat_map(Mapping::into_entries)
                .collect())
        }
        other => Err(format!(
            "expected a mapping or list of mappings for merging, but found {}",
            node_kind(&other)
        )),
    }
}

/// PyYAML's node id for a value: `scalar`, `sequence` or `mapping`.
fn node_kind(value: &Value) -> &'static str {
    match value {
        Value::Seq(_) => "sequence",
        Value::Map(_) => "mapping",
        _ => "scalar",
    }
}

/// `!!set` becomes its keys (Python's `set`, ordered for determinism); other mappings as built.
fn finish_map(map: Mapping, tag: Option<&str>) -> Value {
    if tag == Some("tag:yaml.org,2002:set") {
        let mut keys: Vec<Value> = map.iter().map(|(k, _)| k.clone()).collect();
        keys.sort_by_key(Value::py_repr);
        return Value::Seq(keys);
    }
    Value::Map(map)
}

fn count(value: &Value) -> usize {
    match value {
        Value::Seq(items) => 1 + items.iter().map(count).sum::<usize>(),
        Value::Map(map) => 1 + map.iter().map(|(k, v)| count(k) + count(v)).sum::<usize>(),
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load_ok(text: &str) -> Value {
        load(text, "<unicode string>").expect("loads")
    }

    fn json(text: &str) -> String {
        load_ok(text).to_json().to_string()
    }

    #[test]
    fn mapping_with_yaml11_scalars() {
        assert_eq!(
            json("a: yes\nb: 'yes'\nc: 0777\nd: ~\ne: 1.5\nf: hello world\n"),
            r#"{"a":true,"b":"yes","c":511,"d":null,"e":1.5,"f":"hello world"}"#
        );
    }

    #[test]
    fn empty_stream_is_null() {
        assert_eq!(load_ok(""), Value::Null);
        assert_eq!(load_ok("# only a comment\n"), Value::Null);
    }

    #[test]
    fn merge_keys_follow_pyyaml_order() {
        let text = "base: &b {x: 1, y: 2}\nother: &o {y: 3, z: 4}\nm:\n  <<: [*b, *o]\n  z: 5\n";
        assert_eq!(
            load_ok(text).get("m").expect("m").to_json().to_string(),
            r#"{"y":2,"z":5,"x":1}"#
        );
    }

    #[test]
    fn explicit_tags() {
        assert_eq!(
            json("a: !!str 123\nb: !!int '42'\nc: !!float '1'"),
            r#"{"a":"123","b":42,"c":1.0}"#
        );
        let err = load("a: !custom x", "<unicode string>").expect_err("unknown tag");
        assert!(
            err.problem
                .contains("could not determine a constructor for the tag '!custom'")
        );
    }

    #[test]
    fn value_tag_is_refused_as_value_but_kept_as_key() {
        assert_eq!(json("=: a"), r#"{"=":"a"}"#);
        assert!(load("a: =", "x").is_err());
    }

    #[test]
    fn parse_error_reads_like_pyyaml() {
        let err = load("a: b: c\n", "config.yaml").expect_err("bad yaml");
        assert_eq!(
            err.to_string(),
            "mapping values are not allowed in this context\n  in \"config.yaml\", line 1, column 5"
        );
        assert_eq!(err.line(), Some(1));
    }

    #[test]
    fn second_document_is_an_error() {
        let err = load("a: 1\n---\nb: 2\n", "x").expect_err("two docs");
        assert!(
            err.to_string()
                .starts_with("expected a single document in the stream")
        );
    }

    #[test]
    fn alias_bomb_is_refused() {
        let mut text = String::from("a: &a [x, x, x, x, x, x, x, x, x, x]\n");
        let mut prev = 'a';
        for name in ['b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'] {
            text.push_str(&format!(
                "{name}: &{name} [*{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}]\n"
            ));
            prev = name;
        }
        let err = load(&text, "bomb.yaml").expect_err("refused");
        assert!(err.problem.contains("alias bomb"), "{err}");
    }

    #[test]
    fn deep_nesting_is_refused_not_a_stack_overflow() {
        let text = "[".repeat(10_000);
        assert!(load(&text, "deep.yaml").is_err());
    }

    #[test]
    fn unhashable_key_is_an_error() {
        assert!(load("? [a, b]\n: c\n", "x").is_err());
    }

    #[test]
    fn traps_are_reported_with_lines() {
        let doc = load_document("name: demo\nenabled: on\nmode: 0755\nnote: 'yes'\n", "x")
            .expect("loads");
        let found: Vec<_> = doc
            .traps
            .iter()
            .map(|t| (t.line, t.text.as_str()))
            .collect();
        assert_eq!(found, vec![(2, "on"), (3, "0755")]);
        assert_eq!(doc.traps[0].python, Value::Bool(true));
        assert_eq!(doc.traps[0].yaml12, Value::Str("on".into()));
    }

    #[test]
    fn key_lines_are_kept() {
        let value = load_ok("# c\nname: x\n\ndescription: y\n");
        assert_eq!(
            value.as_map().and_then(|m| m.line_of("description")),
            Some(4)
        );
    }
}
