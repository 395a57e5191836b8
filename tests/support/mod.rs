//! Shared helpers for integration and interop tests: temp homes, our binaries, the Python peer.
#![allow(dead_code)]

// One helper module per area, so areas never edit the same file.
pub mod chat;
pub mod chat_server;
pub mod curate;
pub mod guard;
pub mod hub_server;
pub mod memory;
pub mod pg;
pub mod recall;
pub mod review;
pub mod sessions;
pub mod skills;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Every binary the package builds (one per file in `bins/`).
pub const BINARIES: [&str; 8] = [
    "hermes-chat",
    "hermes-curate",
    "hermes-index",
    "hermes-memory",
    "hermes-recall",
    "hermes-review",
    "hermes-skill-scan",
    "hermes-skills",
];

/// The repository root (where Cargo.toml is).
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A file under `testdata/`.
pub fn testdata(rel: &str) -> PathBuf {
    repo_root().join("testdata").join(rel)
}

/// A fresh, empty HERMES_HOME that is removed when dropped.
pub struct TempHome {
    dir: tempfile::TempDir,
}

impl TempHome {
    pub fn new() -> TempHome {
        TempHome {
            dir: tempfile::Builder::new()
                .prefix("hermes-loop-test-")
                .tempdir()
                .expect("create temp home"),
        }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Writes `rel` under the home, creating directories.
    pub fn write(&self, rel: &str, contents: impl AsRef<[u8]>) -> PathBuf {
        let path = self.dir.path().join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create parent");
        }
        std::fs::write(&path, contents).expect("write test file");
        path
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.dir.path().join(rel)).expect("read test file")
    }
}

/// One of our binaries, run against `home` with a clean environment for the variables we read.
pub fn bin(name: &str, home: &Path) -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::cargo_bin(name).expect("binary is built");
    cmd.env("HERMES_HOME", home)
        .env_remove("HERMES_NOW")
        .env_remove("NO_COLOR")
        .env("TZ", "UTC");
    cmd
}

/// The Python interpreter of the peer venv (`make peer` creates it). Interop tests fail, not
/// skip, without it: a missing peer must never look like a passing suite.
pub fn peer_python() -> PathBuf {
    let python = std::env::var_os("HERMES_PEER_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join(".venv-peer/bin/python"));
    assert!(
        python.exists(),
        "the Python peer is not installed at {} — run `make peer` (pip install hermes-agent==0.19.0)",
        python.display()
    );
    python
}

/// Runs `tests/interop/peer.py COMMAND ARGS` with HERMES_HOME=`home` and returns its JSON answer.
pub fn peer(home: &Path, command: &str, args: &[&str], stdin: Option<&[u8]>) -> serde_json::Value {
    let mut child = Command::new(peer_python())
        .arg(repo_root().join("tests/interop/peer.py"))
        .arg(command)
        .args(args)
        .env("HERMES_HOME", home)
        .env("TZ", "UTC")
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env_remove("HERMES_PLATFORM")
        .env_remove("HERMES_SESSION_PLATFORM")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the Python peer");
    {
        use std::io::Write;
        let mut input = child.stdin.take().expect("stdin");
        if let Some(bytes) = stdin {
            input.write_all(bytes).expect("feed the peer");
        }
    }
    let out = child.wait_with_output().expect("peer finished");
    assert!(
        out.status.success(),
        "peer.py {command} failed: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "peer.py {command} printed no JSON ({e}):\n{}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

/// Lists the differing leaves of two JSON values as `path: ours != python` lines.
pub fn json_diff(ours: &serde_json::Value, theirs: &serde_json::Value) -> Vec<String> {
    fn walk(path: &str, a: &serde_json::Value, b: &serde_json::Value, out: &mut Vec<String>) {
        use serde_json::Value::{Array, Object};
        match (a, b) {
            (Object(x), Object(y)) => {
                let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
                keys.sort();
                keys.dedup();
                for k in keys {
                    let null = serde_json::Value::Null;
                    let (va, vb) = (x.get(k), y.get(k));
                    if va.is_none() || vb.is_none() {
                        out.push(format!(
                            "{path}.{k}: {} != {}",
                            va.unwrap_or(&null),
                            vb.unwrap_or(&null)
                        ));
                    } else {
                        walk(
                            &format!("{path}.{k}"),
                            va.unwrap_or(&null),
                            vb.unwrap_or(&null),
                            out,
                        );
                    }
                }
            }
            (Array(x), Array(y)) if x.len() == y.len() => {
                for (i, (va, vb)) in x.iter().zip(y).enumerate() {
                    walk(&format!("{path}[{i}]"), va, vb, out);
                }
            }
            _ if a != b => out.push(format!("{path}: ours {a} != python {b}")),
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk("", ours, theirs, &mut out);
    out
}

/// The public skills corpus (`../shared/corpus/skills-public`, 1,444 skills; `HERMES_CORPUS`
/// overrides), or the committed sample of it (`testdata/skills-sample`) where the full corpus
/// is not checked out beside the repository. The second value says which one it is. Under CI
/// (`CI` set) the full corpus must be there: a run on 31 skills must not pass for one on 1,444.
pub fn corpus() -> (PathBuf, bool) {
    let full = std::env::var_os("HERMES_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("../shared/corpus/skills-public"));
    if full.is_dir() {
        (full, true)
    } else if std::env::var_os("CI").is_some_and(|v| !v.is_empty()) {
        panic!(
            "CI is set but the full corpus is not at {} (set HERMES_CORPUS)",
            full.display()
        );
    } else {
        eprintln!(
            "note: full corpus not found at {}; using testdata/skills-sample",
            full.display()
        );
        (testdata("skills-sample"), false)
    }
}

/// Copies the tree `from` into `to` (created as needed).
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create target");
    for entry in std::fs::read_dir(from).expect("read source") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}
