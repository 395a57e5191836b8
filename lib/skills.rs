//! Skills: `SKILL.md` folders. This module is the format layer every binary shares: one
//! frontmatter parser (the loader, the linter, the scanner and `skill_manage` never disagree
//! about a skill), the limits Hermes enforces, and the discovery walk.

pub mod discover;
pub mod frontmatter;
pub mod limits;
pub mod lint;
