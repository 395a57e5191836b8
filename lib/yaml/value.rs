//! The value tree a YAML document loads into, with the types Python's `yaml.safe_load` produces.

use std::fmt::Write as _;

/// One YAML node after YAML 1.1 resolution, typed the way PyYAML types it.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    /// An integer beyond `i64`, kept as its decimal digits (Python ints are unbounded).
    BigInt(String),
    Float(f64),
    Str(String),
    /// `!!binary`, base64-decoded.
    Bytes(Vec<u8>),
    /// A YAML 1.1 timestamp (`2024-01-01`), which PyYAML turns into a `date` or `datetime`.
    /// Holds what Python's `str()` prints for it.
    Timestamp(String),
    Seq(Vec<Value>),
    Map(Mapping),
}

/// A mapping in insertion order. A repeated key keeps its first position and its last value,
/// as a Python dict built from the pairs does.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Mapping {
    entries: Vec<(Value, Value)>,
    key_lines: Vec<usize>,
}

impl Mapping {
    pub fn new() -> Mapping {
        Mapping::default()
    }

    /// Inserts a pair; `line` is the 1-based line of the key in the source (0 when unknown).
    pub fn insert(&mut self, key: Value, value: Value, line: usize) {
        if let Some(i) = self.entries.iter().position(|(k, _)| py_key_eq(k, &key)) {
            self.entries[i].1 = value;
            self.key_lines[i] = line;
        } else {
            self.entries.push((key, value));
            self.key_lines.push(line);
        }
    }

    /// The value under a string key.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.entries
            .iter()
            .find(|(k, _)| matches!(k, Value::Str(s) if s == key))
            .map(|(_, v)| v)
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// The 1-based source line of a string key, when the mapping came from a document.
    pub fn line_of(&self, key: &str) -> Option<usize> {
        self.entries
            .iter()
            .position(|(k, _)| matches!(k, Value::Str(s) if s == key))
            .map(|i| self.key_lines[i])
            .filter(|&line| line > 0)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&Value, &Value)> {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    /// Pairs with the source line of each key.
    pub fn iter_with_lines(&self) -> impl Iterator<Item = (&Value, &Value, usize)> {
        self.entries
            .iter()
            .zip(&self.key_lines)
            .map(|((k, v), &line)| (k, v, line))
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub(crate) fn into_entries(self) -> impl Iterator<Item = (Value, Value, usize)> {
        self.entries
            .into_iter()
            .zip(self.key_lines)
            .map(|((k, v), line)| (k, v, line))
    }
}

/// Python dict key equality: `1`, `1.0` and `True` are the same key.
fn py_key_eq(a: &Value, b: &Value) -> bool {
    match (a.as_number(), b.as_number()) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

impl Value {
    /// The mapping under `key` of a mapping value.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Map(m) => m.get(key),
            _ => None,
        }
    }

    /// Follows a path of string keys through nested mappings.
    pub fn get_path(&self, path: &[&str]) -> Option<&Value> {
        path.iter().try_fold(self, |node, key| node.get(key))
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_map(&self) -> Option<&Mapping> {
        match self {
            Value::Map(m) => Some(m),
            _ => None,
        }
    }

    pub fn as_seq(&self) -> Option<&[Value]> {
        match self {
            Value::Seq(s) => Some(s),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// The value as a number when Python would compare it as one (`bool` is an `int`).
    fn as_number(&self) -> Option<f64> {
        match self {
            Value::Bool(b) => Some(f64::from(u8::from(*b))),
            Value::Int(i) => Some(*i as f64),
            Value::Float(f) => Some(*f),
            _ => None,
        }
    }

    /// The name of the Python type this value loads as, for messages.
    pub fn py_type_name(&self) -> &'static str {
        match self {
            Value::Null => "NoneType",
            Value::Bool(_) => "bool",
            Value::Int(_) | Value::BigInt(_) => "int",
            Value::Float(_) => "float",
            Value::Str(_) => "str",
            Value::Bytes(_) => "bytes",
            Value::Timestamp(t) if t.len() == 10 => "date",
            Value::Timestamp(_) => "datetime",
            Value::Seq(_) => "list",
            Value::Map(_) => "dict",
        }
    }

    /// Python truthiness (`bool(value)`).
    pub fn is_truthy(&self) -> bool {
        match self {
            Value::Null => false,
            Value::Bool(b) => *b,
            Value::Int(i) => *i != 0,
            Value::BigInt(_) | Value::Timestamp(_) => true,
            Value::Float(f) => *f != 0.0,
            Value::Str(s) => !s.is_empty(),
            Value::Bytes(b) => !b.is_empty(),
            Value::Seq(s) => !s.is_empty(),
            Value::Map(m) => !m.is_empty(),
        }
    }

    /// What Python's `str(value)` prints.
    pub fn py_str(&self) -> String {
        match self {
            Value::Str(s) => s.clone(),
            Value::Timestamp(t) => t.clone(),
            other => other.py_repr(),
        }
    }

    /// What Python's `repr(value)` prints.
    pub fn py_repr(&self) -> String {
        let mut out = String::new();
        self.write_repr(&mut out);
        out
    }

    fn write_repr(&self, out: &mut String) {
        match self {
            Value::Null => out.push_str("None"),
            Value::Bool(true) => out.push_str("True"),
            Value::Bool(false) => out.push_str("False"),
            Value::Int(i) => {
                let _ = write!(out, "{i}");
            }
            Value::BigInt(digits) => out.push_str(digits),
            Value::Float(f) => out.push_str(&crate::io::pyjson::py_float_repr(*f)),
            Value::Str(s) => out.push_str(&crate::pytext::repr(s)),
            Value::Bytes(bytes) => write_bytes_repr(bytes, out),
            Value::Timestamp(t) => {
                let _ = write!(out, "{}({t})", self.py_type_name());
            }
            Value::Seq(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    item.write_repr(out);
                }
                out.push(']');
            }
            Value::Map(map) => {
                out.push('{');
                for (i, (k, v)) in map.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    k.write_repr(out);
                    out.push_str(": ");
                    v.write_repr(out);
                }
                out.push('}');
            }
        }
    }

    /// The JSON Python's `json.dumps(..., default=str)` would write for this value:
    /// mapping keys become strings the way `json.dumps` converts them.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value as J;
        match self {
            Value::Null => J::Null,
            Value::Bool(b) => J::Bool(*b),
            Value::Int(i) => J::from(*i),
            Value::BigInt(digits) => match digits.parse::<u64>() {
                Ok(n) => J::from(n),
                Err(_) => digits
                    .parse::<f64>()
                    .ok()
                    .and_then(serde_json::Number::from_f64)
                    .map_or(J::Null, J::Number),
            },
            Value::Float(f) => serde_json::Number::from_f64(*f).map_or(J::Null, J::Number),
            Value::Str(s) | Value::Timestamp(s) => J::String(s.clone()),
            Value::Bytes(_) => J::String(self.py_repr()),
            Value::Seq(items) => J::Array(items.iter().map(Value::to_json).collect()),
            Value::Map(map) => J::Object(
                map.iter()
                    .map(|(k, v)| (json_key(k), v.to_json()))
                    .collect(),
            ),
        }
    }
}

/// How `json.dumps` turns a dict key into a string.
fn json_key(key: &Value) -> String {
    match key {
        Value::Bool(true) => "true".into(),
        Value::Bool(false) => "false".into(),
        Value::Null => "null".into(),
        other => other.py_str(),
    }
}

fn write_bytes_repr(bytes: &[u8], out: &mut String) {
    out.push_str("b'");
    for &b in bytes {
        match b {
            b'\\' => out.push_str("\\\\"),
            b'\'' => out.push_str("\\'"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x20..=0x7e => out.push(char::from(b)),
            _ => {
                let _ = write!(out, "\\x{b:02x}");
            }
        }
    }
    out.push('\'');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_key_keeps_first_position_and_last_value() {
        let mut m = Mapping::new();
        m.insert(Value::Str("a".into()), Value::Int(1), 1);
        m.insert(Value::Str("b".into()), Value::Int(2), 2);
        m.insert(Value::Str("a".into()), Value::Int(3), 3);
        let pairs: Vec<_> = m.iter().map(|(k, v)| (k.py_str(), v.clone())).collect();
        assert_eq!(
            pairs,
            vec![("a".into(), Value::Int(3)), ("b".into(), Value::Int(2))]
        );
        assert_eq!(m.line_of("a"), Some(3));
    }

    #[test]
    fn true_and_one_are_one_key_as_in_python() {
        let mut m = Mapping::new();
        m.insert(Value::Int(1), Value::Str("a".into()), 1);
        m.insert(Value::Bool(true), Value::Str("b".into()), 2);
        assert_eq!(m.len(), 1);
        assert_eq!(Value::Map(m).py_repr(), "{1: 'b'}");
    }

    #[test]
    fn python_str_and_repr() {
        assert_eq!(Value::Bool(true).py_str(), "True");
        assert_eq!(Value::Null.py_str(), "None");
        assert_eq!(Value::Float(1.0).py_str(), "1.0");
        assert_eq!(Value::Str("it's".into()).py_repr(), "\"it's\"");
        assert_eq!(
            Value::Seq(vec![Value::Str("a".into()), Value::Int(2)]).py_str(),
            "['a', 2]"
        );
        assert_eq!(Value::Timestamp("2024-01-01".into()).py_str(), "2024-01-01");
    }

    #[test]
    fn truthiness_follows_python() {
        assert!(!Value::Str(String::new()).is_truthy());
        assert!(Value::Str("false".into()).is_truthy());
        assert!(!Value::Int(0).is_truthy());
        assert!(!Value::Seq(vec![]).is_truthy());
    }

    #[test]
    fn json_keys_convert_like_json_dumps() {
        let mut m = Mapping::new();
        m.insert(Value::Bool(true), Value::Null, 1);
        m.insert(Value::Int(7), Value::Null, 2);
        assert_eq!(
            Value::Map(m).to_json().to_string(),
            r#"{"true":null,"7":null}"#
        );
    }
}
