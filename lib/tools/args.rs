//! Reading the model's arguments leniently, as Python's tools do: a number sent as a string
//! still counts, a wrong type falls back to the default instead of failing the call.

use serde_json::{Map, Value};

use crate::pytext::py_int;

/// A string argument; `None` when absent or not a string.
pub fn string<'a>(args: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    args.get(key).and_then(Value::as_str)
}

/// An integer argument as Python's `int()` reads it (`5`, `5.7` or `"5"`); `None` when
/// absent or unreadable.
pub fn int(args: &Map<String, Value>, key: &str) -> Option<i64> {
    args.get(key).and_then(py_int)
}

/// A boolean argument (`true` or `"true"`); `default` when absent or unreadable.
pub fn flag(args: &Map<String, Value>, key: &str, default: bool) -> bool {
    match args.get(key) {
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) => match s.trim().to_ascii_lowercase().as_str() {
            "true" | "1" | "yes" => true,
            "false" | "0" | "no" => false,
            _ => default,
        },
        _ => default,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    use crate::tools::testing::map;

    #[test]
    fn int_takes_numbers_and_numeric_strings() {
        let a = map(json!({"a": 5, "b": "7", "c": 2.0, "d": 2.5, "e": "x"}));
        assert_eq!(int(&a, "a"), Some(5));
        assert_eq!(int(&a, "b"), Some(7));
        assert_eq!(int(&a, "c"), Some(2));
        assert_eq!(int(&a, "d"), Some(2));
        assert_eq!(int(&a, "e"), None);
        assert_eq!(int(&a, "missing"), None);
    }

    #[test]
    fn flag_reads_strings_and_falls_back() {
        let a = map(json!({"a": true, "b": "false", "c": 3}));
        assert!(flag(&a, "a", false));
        assert!(!flag(&a, "b", true));
        assert!(flag(&a, "c", true));
        assert!(!flag(&a, "missing", false));
    }

    #[test]
    fn every_spelling_of_a_flag() {
        let a = map(
            json!({"t1": " TRUE ", "t2": "1", "t3": "yes", "f1": "False", "f2": "0",
            "f3": "no", "x": "maybe", "n": null, "s": 5}),
        );
        for k in ["t1", "t2", "t3"] {
            assert!(flag(&a, k, false), "{k}");
        }
        for k in ["f1", "f2", "f3"] {
            assert!(!flag(&a, k, true), "{k}");
        }
        assert!(flag(&a, "x", true) && !flag(&a, "x", false));
        assert!(flag(&a, "n", true));
        assert_eq!(string(&a, "t1"), Some(" TRUE "));
        assert_eq!(string(&a, "s"), None);
        assert_eq!(string(&a, "missing"), None);
    }
}
