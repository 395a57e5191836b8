//! Skills Guard: the security scanner for skills, and what decides whether one may be
//! installed.
//!
//! Entry points for other modules:
//! - [`scan_skill`] scans a skill folder, [`scan_bundle`] a skill held in memory (an
//!   agent-written skill before its write lands, a hub download before it is unpacked);
//!   both return a [`SkillReport`] with the verdict, the findings (stable rule ids,
//!   severities, messages) and [`SkillReport::install`] / [`SkillReport::decide`], the trust
//!   × verdict decision.
//! - [`Trust::from_source`] maps a hub source to its trust level.
//!
//! How it works: rules are data compiled into the binary ([`catalogue`]); one aho-corasick
//! pass over each file finds the lines worth a look and only the rules those lines could
//! match run on them ([`engine`]); each match is weighed by where it sits ([`context`]);
//! hidden characters ([`unicode`]) and the folder's structure ([`structure`]) are checked
//! in code; pairs such as a secret read and a network send become one finding
//! ([`correlate`]); authors' suppressions need a reason and never sway installs
//! ([`suppress`]).

pub mod anchors;
pub mod baseline;
pub mod batch;
pub mod catalogue;
pub mod context;
pub mod correlate;
pub mod engine;
pub mod expand;
pub mod explain;
pub mod finding;
pub mod ignore;
pub mod intent;
pub mod lines;
mod lowered;
pub mod policy;
pub mod positions;
pub mod prebuilt;
pub mod report;
pub mod required;
pub mod rule;
pub mod sarif;
pub mod scan;
pub mod shell;
pub mod starts;
pub mod structure;
pub mod suppress;
pub mod unicode;
pub mod write_guard;

pub use finding::{Finding, Location};
pub use policy::{Install, Trust, Verdict, decide, install};
pub use rule::{Category, Severity};
pub use scan::{BundleFile, ScanOptions, SkillReport, scan_bundle, scan_skill};
pub use write_guard::agent_write_scanner;
