//! The output format choice: `--format text|json|jsonl`, text on a terminal, jsonl otherwise.

use std::io::IsTerminal;

/// What a binary prints on stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// For people: aligned, coloured on a terminal.
    Text,
    /// The whole answer as one pretty-printed JSON value.
    Json,
    /// One JSON object per line.
    Jsonl,
}

impl Format {
    /// The flag's value, or the default for where stdout goes.
    pub fn resolve(flag: Option<Format>) -> Format {
        flag.unwrap_or_else(|| {
            if std::io::stdout().is_terminal() {
                Format::Text
            } else {
                Format::Jsonl
            }
        })
    }
}

/// Whether text written to stdout may carry colour: a terminal, and `NO_COLOR` unset or empty.
pub fn stdout_color() -> bool {
    std::io::stdout().is_terminal() && no_color_unset()
}

fn no_color_unset() -> bool {
    std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// Serialises a duration in seconds rounded to the millisecond: nanosecond digits in a
/// record are noise a person has to read past.
pub fn milliseconds<S: serde::Serializer>(seconds: &f64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64((seconds * 1000.0).round() / 1000.0)
}
