//! The commands of `hermes-skills`, between the parsed flags and the library: each runs one
//! library call and prints its answer in the chosen format. JSON answers are the tool
//! result objects, written byte for byte as Python's `json.dumps(..., ensure_ascii=False)`
//! in `jsonl`, pretty-printed in `json`.

use std::io::{BufRead, IsTerminal};

use serde_json::{Value as Json, json};

use super::guards::Origin;
use super::library::{Index, Library};
use super::list::{self, ListFilter};
use super::manage::{ManageArgs, Session};
use super::prompt::{self, PromptOptions};
use super::write_scan::WriteScanner;
use crate::io::exit::Exit;
use crate::io::format::Format;
use crate::io::jsonl::read_batch;
use crate::io::output::Output;
use crate::io::pyjson::tool_result;
use crate::io::sanitize::for_terminal;
use crate::io::table;

/// Where and how a command prints: stdout, the format, and the binary's name for messages.
pub struct Ui<'a> {
    pub out: &'a mut Output,
    pub format: Format,
    pub bin: &'a str,
}

/// Text for a person's terminal: escape what could act on it; leave pipes untouched.
fn shown(text: &str) -> String {
    if std::io::stdout().is_terminal() {
        for_terminal(text).into_owned()
    } else {
        text.to_string()
    }
}

fn is_success(value: &Json) -> bool {
    value.get("success") == Some(&Json::Bool(true))
}

/// Prints one tool result; `Exit::Negative` when it says `success: false`.
pub fn print_result(ui: &mut Ui, value: &Json) -> anyhow::Result<Exit> {
    let (out, bin) = (&mut *ui.out, ui.bin);
    match ui.format {
        Format::Jsonl => out.line(&tool_result(value))?,
        Format::Json => out.json(value)?,
        Format::Text => {
            if is_success(value) {
                let message = value
                    .get("message")
                    .and_then(Json::as_str)
                    .or_else(|| value.get("content").and_then(Json::as_str))
                    .unwrap_or("done");
                out.line(&shown(message))?;
            } else {
                print_failure(value, bin);
            }
        }
    }
    Ok(if is_success(value) {
        Exit::Success
    } else {
        Exit::Negative
    })
}

/// A failed answer for a person: the error, then what helps fix it, on stderr.
fn print_failure(value: &Json, bin: &str) {
    let error = value
        .get("error")
        .and_then(Json::as_str)
        .unwrap_or("failed");
    eprintln!(
        "{bin}: {}",
        for_terminal(&crate::io::sanitize::for_person(error))
    );
    if let Some(matches) = value.get("matches").and_then(Json::as_array) {
        for m in matches.iter().filter_map(Json::as_str) {
            eprintln!("  {}", for_terminal(m));
        }
    }
    if let Some(hint) = value.get("hint").and_then(Json::as_str) {
        eprintln!(
            "hint: {}",
            for_terminal(&crate::io::sanitize::for_person(hint))
        );
    }
}

/// `hermes-skills list`.
pub fn list(
    lib: &Library,
    filter: &ListFilter,
    archived: bool,
    ui: &mut Ui,
) -> anyhow::Result<Exit> {
    if let Err(super::usage::SidecarError::Corrupt { path, reason }) =
        super::usage::load_checked(&lib.home)
    {
        crate::io::exit::warn(
            ui.bin,
            format!(
                "{} does not parse ({reason}): usage is shown as zeros, and nothing is recorded until it is fixed or moved away",
                path.display()
            ),
        );
    }
    let (out, format) = (&mut *ui.out, ui.format);
    let index = Index::build(lib);
    let rows = if archived {
        list::archived_rows(lib, &index)
    } else {
        list::rows(lib, &index, filter)
    };
    match format {
        Format::Json => out.json(&rows)?,
        Format::Jsonl => {
            for row in &rows {
                out.jsonl(row)?;
            }
        }
        Format::Text => print_table(&rows, filter.all, out)?,
    }
    Ok(Exit::Success)
}

fn print_table(rows: &[Json], all: bool, out: &mut Output) -> anyhow::Result<()> {
    let text = |row: &Json, key: &str| -> String {
        match row.get(key) {
            Some(Json::String(s)) => shown(s),
            Some(Json::Null) | None => "-".into(),
            Some(other) => shown(&other.to_string()),
        }
    };
    let count = |row: &Json, key: &str| -> String {
        match row.get(key).and_then(Json::as_i64) {
            Some(n) => table::thousands(n),
            None => text(row, key),
        }
    };
    let header = ["NAME", "CATEGORY", "SOURCE", "STATE", "USES", "VIEWS"];
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let mut state = text(r, "state");
            if r.get("pinned") == Some(&Json::Bool(true)) {
                state.push_str(",pinned");
            }
            vec![
                text(r, "name"),
                text(r, "category"),
                text(r, "source"),
                state,
                count(r, "use_count"),
                count(r, "view_count"),
            ]
        })
        .collect();
    let mut widths: Vec<usize> = header.iter().map(|h| h.len()).collect();
    for row in &cells {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(table::width(cell));
        }
    }
    let pad = |cells: &[String]| -> String {
        cells
            .iter()
            .zip(&widths)
            .map(|(c, w)| table::pad(c, *w))
            .collect::<Vec<_>>()
            .join("  ")
    };
    let last = if all {
        "HIDDEN / DESCRIPTION"
    } else {
        "DESCRIPTION"
    };
    let header: Vec<String> = header.iter().map(|h| h.to_string()).collect();
    out.line(&format!("{}  {last}", pad(&header)))?;
    for (row, line) in rows.iter().zip(&cells) {
        let tail = match (row.get("hidden"), row.get("reason")) {
            (Some(Json::String(_)), Some(Json::String(reason))) => {
                format!("hidden: {}", shown(reason))
            }
            (_, Some(Json::String(reason))) => format!("warning: {}", shown(reason)),
            _ => {
                let d = text(row, "description");
                super::limits::truncate_chars(&d, 60, 57)
            }
        };
        out.line(&format!("{}  {tail}", pad(line)))?;
    }
    Ok(())
}

/// `hermes-skills view NAME [FILE]`.
pub fn view(
    lib: &Library,
    name: &str,
    file: Option<&str>,
    count: bool,
    ui: &mut Ui,
) -> anyhow::Result<Exit> {
    let scanner = super::write_scan::Unavailable;
    let mut session = Session::new(lib, Origin::Foreground, &scanner);
    session.count_views = count;
    let result = session.view(name, file);
    warn_all(ui.bin, &session.warnings);
    if ui.format == Format::Text && is_success(&result) {
        let content = result.get("content").and_then(Json::as_str).unwrap_or("");
        ui.out.raw(shown(content).as_bytes())?;
        return Ok(Exit::Success);
    }
    print_result(ui, &result)
}

fn warn_all(bin: &str, warnings: &[String]) {
    for w in warnings {
        crate::io::exit::warn(bin, w);
    }
}

/// One write command (`create`, `patch`, …) as a person's foreground write.
pub fn manage(
    lib: &Library,
    args: &ManageArgs,
    scanner: &dyn WriteScanner,
    ui: &mut Ui,
) -> anyhow::Result<Exit> {
    let mut session = Session::new(lib, Origin::Foreground, scanner);
    let mut result = session.manage(args);
    warn_all(ui.bin, &session.warnings);
    // A person's answer: the tool's keys without its private ones (`_change`, `_archived`:
    // bookkeeping for the agent's caller), and how a patch found its text.
    if let Json::Object(map) = &mut result {
        map.retain(|key, _| !key.starts_with('_'));
        if let (true, Some(found)) = (is_success(&Json::Object(map.clone())), &session.last_match) {
            let exact = found.strategy == "exact";
            map.insert("match".into(), json!(if exact { "exact" } else { "fuzzy" }));
            if !exact {
                map.insert("strategy".into(), json!(found.strategy));
            }
            map.insert(
                "matched".into(),
                Json::Array(
                    found
                        .matched
                        .iter()
                        .map(|(line, text)| json!({"line": line, "text": text}))
                        .collect(),
                ),
            );
        }
    }
    if ui.format == Format::Text
        && is_success(&result)
        && let Some(found) = session
            .last_match
            .as_ref()
            .filter(|m| m.strategy != "exact")
    {
        print_result(ui, &result)?;
        ui.out.line(&format!(
            "match: fuzzy ({}): the text was not found as written; replaced instead:",
            found.strategy
        ))?;
        for (first, text) in &found.matched {
            for (i, line) in text.lines().enumerate() {
                ui.out
                    .line(&shown(&format!("  {:>4}| {line}", first + i)))?;
            }
        }
        return Ok(Exit::Success);
    }
    let exit = print_result(ui, &result)?;
    Ok(if super::manage::is_io_failure(&result) {
        Exit::PartialFailure
    } else {
        exit
    })
}

/// `hermes-skills apply`: JSONL of `skill_manage` argument objects in, one result per line
/// out. A line may also be `{"tool": "skill_view", "name": …, "file_path": …}` (a view in
/// the same session, which an autonomous writer needs before it may change a file).
pub fn apply(
    lib: &Library,
    origin: Origin,
    scanner: &dyn WriteScanner,
    input: impl BufRead,
    keep_going: bool,
    ui: &mut Ui,
) -> anyhow::Result<Exit> {
    let (out, format, bin) = (&mut *ui.out, ui.format, ui.bin);
    // Every line is read and checked before the first call: a bad line writes nothing.
    // A call that is refused (its result says why) does not stop the others, as in a turn.
    let batch = read_batch(input, "skill tool arguments", keep_going, |e| {
        crate::io::exit::warn(bin, e)
    })?;
    let mut session = Session::new(lib, origin, scanner);
    let mut all_ok = true;
    let mut collected = Vec::new();
    for record in batch.records {
        let result = match record.value.get("tool").and_then(Json::as_str) {
            Some("skill_view") => {
                let name = record
                    .value
                    .get("name")
                    .and_then(Json::as_str)
                    .unwrap_or("");
                let file = record.value.get("file_path").and_then(Json::as_str);
                session.view(name, file)
            }
            Some("skill_manage") | None => match ManageArgs::from_json(&record.value) {
                Ok(args) => session.manage(&args),
                Err(message) => json!({"success": false, "error": message}),
            },
            Some(other) => json!({
                "success": false,
                "error": format!("Unknown tool '{other}'. Use: skill_manage, skill_view"),
            }),
        };
        warn_all(bin, &std::mem::take(&mut session.warnings));
        all_ok &= is_success(&result);
        match format {
            Format::Json => collected.push(result),
            Format::Jsonl => out.line(&tool_result(&result))?,
            Format::Text => {
                let line = if is_success(&result) {
                    format!(
                        "ok: {}",
                        result
                            .get("message")
                            .and_then(Json::as_str)
                            .unwrap_or("done")
                    )
                } else {
                    format!(
                        "error: {}",
                        result
                            .get("error")
                            .and_then(Json::as_str)
                            .unwrap_or("failed")
                    )
                };
                out.line(&shown(&format!("line {}: {line}", record.line)))?;
            }
        }
    }
    if format == Format::Json {
        out.json(&collected)?;
    }
    Ok(if batch.bad_lines > 0 {
        Exit::PartialFailure
    } else if all_ok {
        Exit::Success
    } else {
        Exit::Negative
    })
}

/// `hermes-skills prompt-index`.
pub fn prompt_index(lib: &Library, options: &PromptOptions, ui: &mut Ui) -> anyhow::Result<Exit> {
    let (out, format) = (&mut *ui.out, ui.format);
    let collected = prompt::collect(lib, options);
    let text = if lib.roots.local.exists() || !lib.roots.external.is_empty() {
        prompt::render(&collected, &options.compact_categories)
    } else {
        String::new()
    };
    match format {
        Format::Text => {
            if !text.is_empty() {
                out.line(&text)?;
            }
        }
        Format::Json | Format::Jsonl => {
            let skills: std::collections::BTreeSet<(&str, &str)> = collected
                .skills
                .iter()
                .map(|s| (s.category.as_str(), s.name.as_str()))
                .collect();
            let value = json!({"type": "prompt_index", "skills": skills.len(), "text": text});
            if format == Format::Json {
                out.json(&value)?;
            } else {
                out.jsonl(&value)?;
            }
        }
    }
    Ok(Exit::Success)
}
