//! The security scan of skills the agent writes (`skill_manage`), behind a small interface
//! so the skill library does not depend on the scanner's internals.
//!
//! Hermes scans agent writes only when `skills.guard_agent_created` is on (off by default)
//! and lets the write through when the scanner fails. hermes-loop scans by default and fails
//! closed: a write is kept only when a scanner ran and allowed it; otherwise it is rolled
//! back. A refusal names the rule ids that fired, never the matched text, so a model steered
//! by injected text cannot learn from the answer how to slip past the rules.

use std::path::Path;

use crate::home::Config;
use crate::yaml::Value;

/// What the scanner says about a skill directory after a write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScanVerdict {
    /// Keep the write.
    Allowed,
    /// Roll the write back; `rules` are the ids of the rules that fired (sorted, unique).
    Refused { rules: Vec<String> },
}

/// The scanner could not give a verdict (treated as a refusal).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ScanError(pub String);

/// Scans a skill directory written by the agent. The implementation owns the policy: for
/// agent-created skills Hermes allows `safe` and `caution` verdicts and refuses `dangerous`
/// ones (its `agent-created` trust row).
pub trait WriteScanner: Send + Sync {
    fn scan_skill_dir(&self, skill_dir: &Path) -> Result<ScanVerdict, ScanError>;
}

/// A scanner that never allows: with the scan on and no scanner to run, agent writes are
/// refused rather than kept unscanned. The binaries use `guard::agent_write_scanner()`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Unavailable;

impl WriteScanner for Unavailable {
    fn scan_skill_dir(&self, _skill_dir: &Path) -> Result<ScanVerdict, ScanError> {
        Err(ScanError(
            "no security scanner is built into this binary".to_string(),
        ))
    }
}

/// Whether agent writes are scanned: yes unless `skills.guard_agent_created` is explicitly
/// false (`false`, `no`, `off` or `0`). Anything else — absent, null, true, a typo — scans.
pub fn scan_enabled(config: &Config) -> bool {
    match config.raw().get_path(&["skills", "guard_agent_created"]) {
        Some(Value::Bool(false)) => false,
        Some(Value::Int(0)) => false,
        Some(Value::Str(s)) => !matches!(
            s.trim().to_ascii_lowercase().as_str(),
            "false" | "no" | "off" | "0"
        ),
        _ => true,
    }
}

/// The error the model sees when the scan refuses a write: rule ids only.
pub fn refusal_message(outcome: &Result<ScanVerdict, ScanError>) -> Option<String> {
    match outcome {
        Ok(ScanVerdict::Allowed) => None,
        Ok(ScanVerdict::Refused { rules }) => Some(format!(
            "Security scan blocked this skill: it matches rule{} {}. The change was rolled back. Remove what those rules flag and retry; the matched text is not shown.",
            if rules.len() == 1 { "" } else { "s" },
            if rules.is_empty() {
                "(unnamed)".to_string()
            } else {
                rules.join(", ")
            }
        )),
        Err(e) => Some(format!(
            "Security scan could not run ({e}), so the change was rolled back (rule: scanner_unavailable). Writes by the agent are kept only after a scan; set skills.guard_agent_created: false in config.yaml to write without one."
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(text: &str) -> Config {
        Config::from_bytes(text.as_bytes(), Path::new("c")).expect("config")
    }

    #[test]
    fn on_unless_explicitly_false() {
        assert!(scan_enabled(&Config::defaults()));
        assert!(scan_enabled(&config(
            "skills:\n  guard_agent_created: maybe\n"
        )));
        assert!(scan_enabled(&config(
            "skills:\n  guard_agent_created: null\n"
        )));
        assert!(!scan_enabled(&config(
            "skills:\n  guard_agent_created: off\n"
        )));
        assert!(!scan_enabled(&config(
            "skills:\n  guard_agent_created: 'No'\n"
        )));
    }

    #[test]
    fn refusals_name_rules_only() {
        let refused = Ok(ScanVerdict::Refused {
            rules: vec!["curl_pipe_shell".into(), "reverse_shell".into()],
        });
        let message = refusal_message(&refused).expect("refused");
        assert!(
            message.contains("rules curl_pipe_shell, reverse_shell."),
            "{message}"
        );
        assert_eq!(refusal_message(&Ok(ScanVerdict::Allowed)), None);
        let failed = Unavailable.scan_skill_dir(Path::new("/x"));
        assert!(
            refusal_message(&failed)
                .expect("refused")
                .contains("(rule: scanner_unavailable)")
        );
    }
}
