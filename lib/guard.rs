//! Skills Guard: the security scanner for skills.
pub mod catalogue;
pub mod context;
pub mod correlate;
pub mod engine;
pub mod finding;
pub mod ignore;
pub mod lines;
pub mod policy;
pub mod rule;
pub mod scan;
pub mod structure;
pub mod suppress;
pub mod unicode;
