//! The skills hub: where skills written by other people come from, and the gate they pass
//! before they land in the library.
//!
//! - [`source`]: the [`Source`](source::Source) trait and the skill metadata a search yields;
//!   one file per kind of source: [`tap`] (a local directory or git checkout),
//!   [`github`] (the contents API), [`well_known`] (`/.well-known/skills/index.json`) and
//!   [`url`] (a plain `SKILL.md` or `.tar.gz` URL).
//! - [`identifier`]: the identifiers of reference §7.2 and which source serves each.
//! - [`net`]: every HTTP request, refusing private addresses on every redirect hop, with a
//!   timeout and a size cap; [`archive`] unpacks a download without letting it escape.
//! - [`search`]: all sources at once, each with its own deadline; a failing source is named
//!   in the answer, never fatal.
//! - [`install`]: quarantine → scan (lib/guard) → trust × verdict policy → atomic move, and
//!   uninstall; [`maintain`]: check, update and audit.
//! - [`lock`]: `.hub/lock.json` and `.hub/audit.log` in Python Hermes's formats.
//! - [`cli`]: the `hermes-skills hub …` subcommands.

pub mod archive;
pub mod bundle;
pub mod cli;
pub mod config;
pub mod error;
pub mod github;
pub mod identifier;
pub mod install;
pub mod lock;
pub mod maintain;
pub mod net;
pub mod search;
pub mod source;
pub mod tap;
pub mod url;
pub mod well_known;

pub use error::HubError;
