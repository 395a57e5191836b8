//! Repair of tool-call arguments that are almost JSON: the damage a model or a cut stream
//! does (a trailing comma, unclosed brackets or string, raw control characters in strings,
//! an extra closer). Anything further from JSON is refused: guessing at arguments would run
//! a tool on something the model did not ask for.

use serde_json::Value;

/// Parses `raw` as a JSON object, repairing the damage above; `None` when it is still not
/// an object.
pub fn repair_json(raw: &str) -> Option<Value> {
    let text = raw.trim();
    if text.is_empty() {
        return Some(Value::Object(Default::default()));
    }
    if let Ok(v) = serde_json::from_str::<Value>(text) {
        return v.is_object().then_some(v);
    }
    let repaired = close_and_clean(text);
    match serde_json::from_str::<Value>(&repaired) {
        Ok(v) if v.is_object() => Some(v),
        _ => None,
    }
}

fn close_and_clean(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut stack: Vec<char> = Vec::new();
    let mut in_string = false;
    let mut escaped = false;
    for c in text.chars() {
        if in_string {
            match c {
                _ if escaped => {
                    escaped = false;
                    out.push(c);
                }
                '\\' => {
                    escaped = true;
                    out.push(c);
                }
                '"' => {
                    in_string = false;
                    out.push(c);
                }
                // A raw control character is not allowed in a JSON string: escaped.
                c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
                c => out.push(c),
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '{' => {
                stack.push('}');
                out.push(c);
            }
            '[' => {
                stack.push(']');
                out.push(c);
            }
            '}' | ']' => {
                // A closer with nothing open is dropped; a mismatched one too.
                if stack.last() == Some(&c) {
                    stack.pop();
                    strip_trailing_comma(&mut out);
                    out.push(c);
                }
            }
            c => out.push(c),
        }
    }
    if escaped {
        out.pop();
    }
    if in_string {
        out.push('"');
    }
    while let Some(closer) = stack.pop() {
        strip_trailing_comma(&mut out);
        out.push(closer);
    }
    out
}

fn strip_trailing_comma(out: &mut String) {
    let trimmed = out.trim_end().len();
    if out[..trimmed].ends_with(',') {
        out.truncate(trimmed - 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn repairs_what_a_cut_stream_leaves() {
        assert_eq!(repair_json(r#"{"a": 1,}"#), Some(json!({"a": 1})));
        assert_eq!(repair_json(r#"{"a": [1, 2"#), Some(json!({"a": [1, 2]})));
        assert_eq!(repair_json(r#"{"a": "line"#), Some(json!({"a": "line"})));
        assert_eq!(repair_json("{\"a\": \"x\ny\"}"), Some(json!({"a": "x\ny"})));
        assert_eq!(repair_json(r#"{"a": 1}}"#), Some(json!({"a": 1})));
        assert_eq!(repair_json(""), Some(json!({})));
    }

    #[test]
    fn repairs_inside_strings_keep_their_text() {
        // Raw control characters become escapes; escaped quotes and backslashes stay.
        assert_eq!(
            repair_json("{\"a\": \"t\tr\r\u{1}\\\"q\\\\\",}"),
            Some(json!({"a": "t\tr\r\u{1}\"q\\"}))
        );
        // Brackets inside a string are text, not structure.
        assert_eq!(
            repair_json(r#"{"a": "}]", "b": [{"c": 1,},"#),
            Some(json!({"a": "}]", "b": [{"c": 1}]}))
        );
        // A stream cut just after a backslash: the lone escape is dropped.
        assert_eq!(repair_json("{\"a\": \"x\\"), Some(json!({"a": "x"})));
        // Text outside the control characters goes through as it is.
        assert_eq!(
            repair_json("{\"a\": \"😀 é\nx"),
            Some(json!({"a": "😀 é\nx"}))
        );
        // A mismatched closer is dropped, the right one added.
        assert_eq!(repair_json(r#"{"a": [1}"#), Some(json!({"a": [1]})));
        assert_eq!(repair_json("  {\"a\": 1 ,  "), Some(json!({"a": 1})));
        assert_eq!(repair_json(" \n "), Some(json!({})));
    }

    #[test]
    fn refuses_what_is_not_json() {
        assert_eq!(repair_json("{path: a.txt}"), None);
        assert_eq!(repair_json("[1, 2]"), None);
        assert_eq!(repair_json("hello"), None);
        assert_eq!(repair_json("[1, 2"), None);
        assert_eq!(repair_json("\"text"), None);
    }
}
