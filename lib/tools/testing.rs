//! Helpers shared by the tools' unit tests.

use serde_json::{Map, Value};

use super::Workspace;

/// The object of `v` (empty for anything else), as the tools take their arguments.
pub(crate) fn map(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

/// A workspace in a fresh temp folder (canonical path; HERMES_HOME at `<root>/hh`) holding
/// `files`.
pub(crate) fn workspace(files: &[(&str, &str)]) -> (tempfile::TempDir, Workspace) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().canonicalize().expect("canonical temp path");
    let ws = Workspace::new(root.clone(), root.join("hh"));
    for (rel, text) in files {
        std::fs::write(root.join(rel), text).expect("write test file");
    }
    (dir, ws)
}
