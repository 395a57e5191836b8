//! YAML as Python Hermes reads it.
//!
//! Hermes parses `config.yaml` and SKILL.md frontmatter with PyYAML's `CSafeLoader`: libyaml's
//! parser plus PyYAML's YAML 1.1 resolution, where `on`, `yes` and `off` are booleans, `0755`
//! is octal and `2024-01-01` is a date. YAML 1.2 libraries read those differently, so this
//! module pairs libyaml's own parser (the C code translated to Rust) with our own PyYAML-compatible resolver, and
//! reports every scalar the two specs disagree on (the linter's YAML 1.1 traps).

mod compose;
mod libyaml;
mod resolve;
mod strict;
mod value;

pub use compose::{Document, Trap, YamlError, load, load_document};
pub use strict::{StrictIssue, strict_issues};
pub use value::{Mapping, Value};
