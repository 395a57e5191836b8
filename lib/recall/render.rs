//! The `text` rendering of an answer, for a person: each session's title, when and where,
//! the hit and its window; every piece escaped for the terminal and long messages cut.

use std::fmt::Write;

use serde_json::Value;

use crate::io::sanitize::for_terminal;

/// The longest message text shown, in characters.
const CUT: usize = 240;

/// Renders a successful answer; errors are the caller's to print (see [`error_text`]).
pub fn text(answer: &Value, color: bool) -> String {
    let style = Style { color };
    match answer.get("mode").and_then(Value::as_str) {
        Some("discover") => discover(answer, style),
        Some("scroll") => scroll(answer, style),
        Some("read") => read(answer, style),
        Some("browse") => browse(answer, style),
        _ => String::new(),
    }
}

/// The message of an error answer, if it is one.
pub fn error_text(answer: &Value) -> Option<String> {
    (answer.get("success") != Some(&Value::Bool(true))).then(|| {
        answer.get("error").and_then(Value::as_str).map_or_else(
            || "unknown error".to_string(),
            |e| for_terminal(e).into_owned(),
        )
    })
}

#[derive(Clone, Copy)]
struct Style {
    color: bool,
}

impl Style {
    fn bold(self, s: &str) -> String {
        if self.color {
            format!("\x1b[1m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }

    fn dim(self, s: &str) -> String {
        if self.color {
            format!("\x1b[2m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }

    /// A snippet with its `>>>match<<<` markers shown in bold on a terminal.
    fn snippet(self, s: &str) -> String {
        let s = one_line(s);
        if self.color {
            s.replace(">>>", "\x1b[1;33m").replace("<<<", "\x1b[0m")
        } else {
            s
        }
    }
}

fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

/// Text on one line, escaped, cut to [`CUT`] characters.
fn one_line(s: &str) -> String {
    let flat: String = s
        .chars()
        .map(|c| {
            if c == '\n' || c == '\r' || c == '\t' {
                ' '
            } else {
                c
            }
        })
        .collect();
    let flat = flat.trim();
    let cut: String = flat.chars().take(CUT).collect();
    let more = flat.chars().count() > CUT;
    let mut out = for_terminal(&cut).into_owned();
    if more {
        out.push('…');
    }
    out
}

/// A message's text: its content (the text parts of multimodal content), else its tool calls.
fn message_text(m: &Value) -> String {
    let content = match m.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join(" "),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    };
    if !content.trim().is_empty() {
        return content;
    }
    match m.get("tool_calls") {
        Some(Value::Array(calls)) => calls
            .iter()
            .map(|c| {
                let f = c.get("function").unwrap_or(c);
                format!("→ {}({})", str_of(f, "name"), str_of(f, "arguments"))
            })
            .collect::<Vec<_>>()
            .join(" "),
        _ => content,
    }
}

fn message_line(out: &mut String, m: &Value, indent: &str, style: Style) {
    let anchor = m.get("anchor") == Some(&Value::Bool(true));
    let id = m.get("id").map_or_else(String::new, |v| v.to_string());
    let mut role = str_of(m, "role").to_string();
    if let Some(tool) = m.get("tool_name").and_then(Value::as_str) {
        role = format!("{role} {tool}");
    }
    let body = one_line(&message_text(m));
    let line = format!("#{id} {}: {body}", for_terminal(&role));
    let _ = writeln!(
        out,
        "{indent}{} {}",
        if anchor { "▶" } else { " " },
        if anchor { style.bold(&line) } else { line }
    );
}

fn messages(out: &mut String, list: Option<&Value>, indent: &str, style: Style) {
    for m in list.and_then(Value::as_array).into_iter().flatten() {
        message_line(out, m, indent, style);
    }
}

fn discover(answer: &Value, style: Style) -> String {
    let mut out = String::new();
    let query = for_terminal(str_of(answer, "query")).into_owned();
    let results = answer
        .get("results")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if results.is_empty() {
        let _ = writeln!(out, "No matching sessions found for \"{query}\".");
        return out;
    }
    let _ = writeln!(
        out,
        "{} for \"{query}\":",
        if results.len() == 1 {
            "1 session".to_string()
        } else {
            format!("{} sessions", results.len())
        }
    );
    for (i, r) in results.iter().enumerate() {
        let title = r
            .get("title")
            .and_then(Value::as_str)
            .map_or_else(|| "(untitled)".to_string(), one_line);
        let mut head = format!(
            "{}  ·  {}  ·  {}  ·  {}",
            style.bold(&title),
            for_terminal(str_of(r, "when")),
            for_terminal(str_of(r, "source")),
            for_terminal(str_of(r, "session_id")),
        );
        if let Some(root) = r.get("parent_session_id").and_then(Value::as_str) {
            let _ = write!(head, " (conversation {})", for_terminal(root));
        }
        let _ = writeln!(out, "\n{}. {head}", i + 1);
        let role = str_of(r, "matched_role");
        let _ = writeln!(
            out,
            "   {}",
            style.dim(&format!(
                "matched in {}{}",
                for_terminal(role),
                r.get("match_message_id")
                    .filter(|v| !v.is_null())
                    .map_or_else(String::new, |id| format!(" #{id}"))
            ))
        );
        let _ = writeln!(out, "   {}", style.snippet(str_of(r, "snippet")));
        let start = r.get("bookend_start").and_then(Value::as_array);
        if start.is_some_and(|s| !s.is_empty()) {
            let _ = writeln!(out, "   {}", style.dim("how it started:"));
            messages(&mut out, r.get("bookend_start"), "   ", style);
        }
        let _ = writeln!(
            out,
            "   {}",
            style.dim(&format!(
                "around the hit ({} before, {} after):",
                r.get("messages_before").unwrap_or(&Value::Null),
                r.get("messages_after").unwrap_or(&Value::Null)
            ))
        );
        messages(&mut out, r.get("messages"), "   ", style);
        let end = r.get("bookend_end").and_then(Value::as_array);
        if end.is_some_and(|s| !s.is_empty()) {
            let _ = writeln!(out, "   {}", style.dim("how it ended:"));
            messages(&mut out, r.get("bookend_end"), "   ", style);
        }
    }
    out
}

fn session_head(answer: &Value, style: Style) -> String {
    let meta = answer.get("session_meta").cloned().unwrap_or(Value::Null);
    let title = meta
        .get("title")
        .and_then(Value::as_str)
        .map_or_else(|| "(untitled)".to_string(), one_line);
    format!(
        "{}  ·  {}  ·  {}  ·  {}",
        style.bold(&title),
        for_terminal(str_of(&meta, "when")),
        for_terminal(str_of(&meta, "source")),
        for_terminal(str_of(answer, "session_id")),
    )
}

fn scroll(answer: &Value, style: Style) -> String {
    let mut out = session_head(answer, style);
    out.push('\n');
    if let Some(w) = answer.get("warning").and_then(Value::as_str) {
        let _ = writeln!(out, "{}", style.dim(&for_terminal(w)));
    }
    let _ = writeln!(
        out,
        "{}",
        style.dim(&format!(
            "around #{} (window {}; {} before, {} after):",
            answer.get("around_message_id").unwrap_or(&Value::Null),
            answer.get("window").unwrap_or(&Value::Null),
            answer.get("messages_before").unwrap_or(&Value::Null),
            answer.get("messages_after").unwrap_or(&Value::Null)
        ))
    );
    messages(&mut out, answer.get("messages"), "", style);
    out
}

fn read(answer: &Value, style: Style) -> String {
    let mut out = session_head(answer, style);
    out.push('\n');
    if let Some(p) = answer.get("profile").and_then(Value::as_str) {
        let _ = writeln!(
            out,
            "{}",
            style.dim(&format!("from profile {}", for_terminal(p)))
        );
    }
    let _ = writeln!(
        out,
        "{}",
        style.dim(&format!(
            "{} messages{}",
            answer.get("message_count").unwrap_or(&Value::Null),
            if answer.get("truncated") == Some(&Value::Bool(true)) {
                " (first 20 and last 10 shown)"
            } else {
                ""
            }
        ))
    );
    let list = answer.get("messages").and_then(Value::as_array);
    for (i, m) in list.into_iter().flatten().enumerate() {
        if i == 20 && answer.get("truncated") == Some(&Value::Bool(true)) {
            let _ = writeln!(out, "  {}", style.dim("…"));
        }
        message_line(&mut out, m, "", style);
    }
    out
}

fn browse(answer: &Value, style: Style) -> String {
    let mut out = String::new();
    let results = answer
        .get("results")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if results.is_empty() {
        out.push_str("No sessions yet.\n");
        return out;
    }
    for r in &results {
        let label = r
            .get("title")
            .and_then(Value::as_str)
            .map(one_line)
            .unwrap_or_else(|| one_line(str_of(r, "preview")));
        let last = r.get("last_active").map_or_else(
            || "unknown".to_string(),
            |v| match v.as_f64() {
                Some(f) => super::when::format(&rusqlite::types::Value::Real(f)),
                None => crate::pytext::py_str(v),
            },
        );
        let _ = writeln!(
            out,
            "{}  {}",
            for_terminal(str_of(r, "session_id")),
            style.bold(&label)
        );
        let _ = writeln!(
            out,
            "    {}",
            style.dim(&format!(
                "{} · {} messages · last active {}",
                for_terminal(str_of(r, "source")),
                r.get("message_count").unwrap_or(&Value::Null),
                last
            ))
        );
    }
    out
}
