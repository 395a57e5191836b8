//! Skills: `SKILL.md` folders. The format layer every binary shares — one frontmatter parser
//! (the loader, the linter, the scanner and `skill_manage` never disagree about a skill), the
//! limits Hermes enforces, the discovery walk — and the skill library on top of it: roots and
//! precedence, listing with the reasons a skill is hidden, name resolution and viewing,
//! `skill_manage` with its guards, the usage sidecar, provenance, archive and restore, and the
//! system-prompt index.

pub mod approval;
pub mod archive;
pub mod catalog;
pub mod command;
pub mod difflib;
pub mod discover;
pub mod frontmatter;
pub mod fuzzy;
pub mod guards;
pub mod library;
pub mod limits;
pub mod lint;
pub mod list;
pub mod manage;
pub mod prompt;
pub mod provenance;
pub mod roots;
pub mod runtime;
pub mod setup;
pub mod usage;
pub mod view;
pub mod write_scan;
