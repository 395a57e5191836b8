//! JSON written byte for byte as Python's `json.dumps` writes it, so files and tool answers
//! that Python Hermes also writes compare equal: `", "`/`": "` separators, `indent=2` layout,
//! `ensure_ascii`, `sort_keys`, and Python's float `repr`.

use serde_json::Value;

/// The `json.dumps` options that change its output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dumps {
    pub indent: Option<usize>,
    pub ensure_ascii: bool,
    pub sort_keys: bool,
}

impl Dumps {
    /// `json.dumps(obj, ensure_ascii=False)`: the tool-result form.
    pub const TOOL_RESULT: Dumps = Dumps {
        indent: None,
        ensure_ascii: false,
        sort_keys: false,
    };
    /// `json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False)`: the sidecar-file form
    /// (`.usage.json`, `.curator_state`).
    pub const SIDECAR: Dumps = Dumps {
        indent: Some(2),
        ensure_ascii: false,
        sort_keys: true,
    };
}

/// Serialises `value` as `json.dumps` with `options` would.
pub fn dumps(value: &Value, options: Dumps) -> String {
    let mut out = String::new();
    write_value(value, Layout::spaced(options), 0, &mut out);
    out
}

/// `json.dumps(value, separators=(",", ":"), sort_keys=True)`: the form Hermes re-serialises
/// tool-call arguments into before it sends them (reference `agent` §2.3).
pub fn compact_sorted(value: &Value) -> String {
    let layout = Layout {
        options: Dumps {
            indent: None,
            ensure_ascii: true,
            sort_keys: true,
        },
        item_sep: ",",
        key_sep: ":",
    };
    let mut out = String::new();
    write_value(value, layout, 0, &mut out);
    out
}

/// The options plus the two separators, which only the compact form changes.
#[derive(Clone, Copy)]
struct Layout {
    options: Dumps,
    item_sep: &'static str,
    key_sep: &'static str,
}

impl Layout {
    fn spaced(options: Dumps) -> Layout {
        Layout {
            options,
            item_sep: ", ",
            key_sep: ": ",
        }
    }
}

/// `json.dumps(value, ensure_ascii=False)`.
pub fn tool_result(value: &Value) -> String {
    dumps(value, Dumps::TOOL_RESULT)
}

fn write_value(value: &Value, layout: Layout, depth: usize, out: &mut String) {
    let options = layout.options;
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(n) => {
            if let Some(f) = n.as_f64().filter(|_| n.is_f64()) {
                out.push_str(&json_float(f));
            } else {
                out.push_str(&n.to_string());
            }
        }
        Value::String(s) => write_string(s, options.ensure_ascii, out),
        Value::Array(items) => {
            if items.is_empty() {
                out.push_str("[]");
                return;
            }
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                separator(i, layout, depth + 1, out);
                write_value(item, layout, depth + 1, out);
            }
            closing(options, depth, out);
            out.push(']');
        }
        Value::Object(map) => {
            if map.is_empty() {
                out.push_str("{}");
                return;
            }
            out.push('{');
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            if options.sort_keys {
                entries.sort_by(|a, b| a.0.cmp(b.0));
            }
            for (i, (key, item)) in entries.into_iter().enumerate() {
                separator(i, layout, depth + 1, out);
                write_string(key, options.ensure_ascii, out);
                out.push_str(layout.key_sep);
                write_value(item, layout, depth + 1, out);
            }
            closing(options, depth, out);
            out.push('}');
        }
    }
}

fn separator(index: usize, layout: Layout, depth: usize, out: &mut String) {
    match layout.options.indent {
        Some(width) => {
            if index > 0 {
                out.push(',');
            }
            out.push('\n');
            out.extend(std::iter::repeat_n(' ', width * depth));
        }
        None if index > 0 => out.push_str(layout.item_sep),
        None => {}
    }
}

fn closing(options: Dumps, depth: usize, out: &mut String) {
    if let Some(width) = options.indent {
        out.push('\n');
        out.extend(std::iter::repeat_n(' ', width * depth));
    }
}

fn write_string(s: &str, ensure_ascii: bool, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || (ensure_ascii && !(' '..='~').contains(&c)) => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A float as `json.dumps` writes it: `repr` for finite values, `NaN`/`Infinity` otherwise.
pub fn json_float(f: f64) -> String {
    if f.is_nan() {
        "NaN".into()
    } else if f.is_infinite() {
        if f > 0.0 { "Infinity" } else { "-Infinity" }.into()
    } else {
        py_float_repr(f)
    }
}

/// Python's `repr(float)`: the shortest digits that round-trip, in fixed notation when the
/// decimal exponent is in [-4, 16), else `d.ddde±XX`.
pub fn py_float_repr(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf" } else { "-inf" }.into();
    }
    // Rust's `{:e}` prints the shortest round-trip digits: "1.2345e-5", "-1e16".
    let sci = format!("{f:e}");
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let (negative, mantissa) = match mantissa.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let point = exponent + 1;
    let mut out = String::new();
    if negative {
        out.push('-');
    }
    if (-3..=16).contains(&point) {
        if point <= 0 {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', point.unsigned_abs() as usize));
            out.push_str(&digits);
        } else {
            let point = point as usize;
            if digits.len() <= point {
                out.push_str(&digits);
                out.extend(std::iter::repeat_n('0', point - digits.len()));
                out.push_str(".0");
            } else {
                out.push_str(&digits[..point]);
                out.push('.');
                out.push_str(&digits[point..]);
            }
        }
    } else {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let exp = point - 1;
        out.push_str(&format!(
            "e{}{:02}",
            if exp < 0 { '-' } else { '+' },
            exp.abs()
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn float_repr_matches_python() {
        let cases = [
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (0.25081, "0.25081"),
            (75.46, "75.46"),
            (1e-5, "1e-05"),
            (0.0001, "0.0001"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (123456789012345680.0, "1.2345678901234568e+17"),
            (1.5e-7, "1.5e-07"),
            (-2.5, "-2.5"),
            (0.1 + 0.2, "0.30000000000000004"),
        ];
        for (f, want) in cases {
            assert_eq!(py_float_repr(f), want, "{f}");
        }
    }

    #[test]
    fn non_finite_floats_are_written_as_python_writes_them() {
        assert_eq!(json_float(f64::NAN), "NaN");
        assert_eq!(json_float(f64::INFINITY), "Infinity");
        assert_eq!(json_float(f64::NEG_INFINITY), "-Infinity");
        assert_eq!(json_float(-1.5), "-1.5");
        assert_eq!(py_float_repr(f64::NAN), "nan");
        assert_eq!(py_float_repr(f64::INFINITY), "inf");
        assert_eq!(py_float_repr(f64::NEG_INFINITY), "-inf");
    }

    #[test]
    fn arguments_form_is_compact_sorted_and_ascii() {
        let v = json!({"b": [1, {"d": null, "c": false}], "a": "é\n"});
        assert_eq!(
            compact_sorted(&v),
            r#"{"a":"\u00e9\n","b":[1,{"c":false,"d":null}]}"#
        );
    }

    #[test]
    fn compact_form_uses_python_separators() {
        let v = json!({"success": true, "message": "déjà \"vu\"", "n": [1, 2.0]});
        assert_eq!(
            tool_result(&v),
            r#"{"success": true, "message": "déjà \"vu\"", "n": [1, 2.0]}"#
        );
    }

    #[test]
    fn sidecar_form_is_sorted_and_indented() {
        let v = json!({"b": {"y": [], "x": {}}, "a": [1, "é"]});
        assert_eq!(
            dumps(&v, Dumps::SIDECAR),
            "{\n  \"a\": [\n    1,\n    \"é\"\n  ],\n  \"b\": {\n    \"x\": {},\n    \"y\": []\n  }\n}"
        );
    }

    #[test]
    fn ensure_ascii_escapes_like_python() {
        let options = Dumps {
            indent: None,
            ensure_ascii: true,
            sort_keys: false,
        };
        assert_eq!(
            dumps(&json!("é😀\u{7f}\u{1}"), options),
            r#""\u00e9\ud83d\ude00\u007f\u0001""#
        );
        assert_eq!(tool_result(&json!("\u{7f}\u{1}")), "\"\u{7f}\\u0001\"");
    }
}
