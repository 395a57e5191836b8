//! The config.yaml keys the agent loop reads, with Hermes 0.19.0's defaults and Python's
//! coercions (reference `agent` §2.1, §3.6, §5.4, §7; `loop` §1.1).

use std::time::Duration;

use crate::home::Config;
use crate::home::config::{py_float, py_int};
use crate::yaml::Value;

#[derive(Debug, Clone, PartialEq)]
pub struct AgentSettings {
    /// Model calls per turn (`agent.max_turns`, 90).
    pub max_turns: u32,
    /// Attempts per model call (`agent.api_max_retries`, 3).
    pub api_max_retries: u32,
    /// First retry wait (`agent.retry_backoff_seconds`, ours, 2 s as Hermes waits).
    pub retry_backoff: Duration,
    /// The model's context window (`model.context_length`, 256,000 when unknown).
    pub context_length: u64,
    pub compression: CompressionSettings,
    /// `approvals.deny`: globs refused outright.
    pub deny_globs: Vec<String>,
    /// `command_allowlist`: commands approved for good.
    pub allowlist: Vec<String>,
    /// `terminal.timeout` (180 s).
    pub terminal_timeout: u64,
    pub memory_nudge_interval: i64,
    pub skill_nudge_interval: i64,
    /// `auxiliary.title_generation.enabled` — we title without a model call; this only turns
    /// titling off.
    pub titles: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CompressionSettings {
    pub enabled: bool,
    pub threshold: f64,
    pub target_ratio: f64,
    pub protect_last_n: usize,
    pub protect_first_n: usize,
    pub in_place: bool,
}

impl AgentSettings {
    pub fn from_config(config: &Config) -> AgentSettings {
        let raw = config.raw();
        let get = |path: &[&str]| raw.get_path(path);
        let int = |path: &[&str], default: i64| get(path).and_then(py_int).unwrap_or(default);
        let float = |path: &[&str], default: f64| get(path).and_then(py_float).unwrap_or(default);
        let flag = |path: &[&str], default: bool| get(path).map_or(default, Value::is_truthy);
        let strings = |path: &[&str]| -> Vec<String> {
            get(path)
                .and_then(Value::as_seq)
                .map(|items| items.iter().map(Value::py_str).collect())
                .unwrap_or_default()
        };
        AgentSettings {
            max_turns: int(&["agent", "max_turns"], 90).clamp(1, 10_000) as u32,
            api_max_retries: int(&["agent", "api_max_retries"], 3).clamp(1, 20) as u32,
            retry_backoff: Duration::from_secs_f64(
                float(&["agent", "retry_backoff_seconds"], 2.0).clamp(0.0, 60.0),
            ),
            context_length: int(&["model", "context_length"], 256_000).max(1) as u64,
            compression: CompressionSettings {
                enabled: flag(&["compression", "enabled"], true),
                threshold: float(&["compression", "threshold"], 0.50).clamp(0.05, 0.95),
                target_ratio: float(&["compression", "target_ratio"], 0.20).clamp(0.05, 0.8),
                protect_last_n: int(&["compression", "protect_last_n"], 20).max(1) as usize,
                protect_first_n: int(&["compression", "protect_first_n"], 3).max(0) as usize,
                in_place: flag(&["compression", "in_place"], true),
            },
            deny_globs: strings(&["approvals", "deny"]),
            allowlist: strings(&["command_allowlist"]),
            terminal_timeout: int(&["terminal", "timeout"], 180).clamp(1, 600) as u64,
            memory_nudge_interval: config.memory.nudge_interval,
            skill_nudge_interval: config.skills.creation_nudge_interval,
            titles: flag(&["auxiliary", "title_generation", "enabled"], true),
        }
    }

    /// The token count above which the conversation is compacted (reference `agent` §7):
    /// the window less the output cap, times the threshold (at least 0.75 below 512K), at
    /// least 64,000, and always below the window.
    pub fn compaction_trigger(&self, max_tokens: Option<u64>) -> u64 {
        let window = match max_tokens {
            Some(m) if m < self.context_length => self.context_length - m,
            _ => self.context_length,
        };
        let pct = if window < 512_000 {
            self.compression.threshold.max(0.75)
        } else {
            self.compression.threshold
        };
        let t = ((window as f64 * pct) as u64).max(64_000);
        if t >= window {
            ((window as f64 * 0.85) as u64).min(window.saturating_sub(1))
        } else {
            t
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn settings(yaml: &str) -> AgentSettings {
        AgentSettings::from_config(
            &Config::from_bytes(yaml.as_bytes(), Path::new("c.yaml")).unwrap(),
        )
    }

    #[test]
    fn defaults_are_hermess() {
        let s = settings("");
        assert_eq!((s.max_turns, s.api_max_retries), (90, 3));
        assert!(s.compression.in_place);
        assert_eq!(s.memory_nudge_interval, 10);
    }

    #[test]
    fn the_compaction_trigger_matches_the_reference_example() {
        let s = settings("model: {context_length: 70000}\n");
        assert_eq!(s.compaction_trigger(Some(60000)), 8500);
    }

    #[test]
    fn every_key_is_read_and_held_to_its_range() {
        let s = settings(
            "agent: {max_turns: 0, api_max_retries: 99, retry_backoff_seconds: 0.5}\n\
             model: {context_length: 0}\n\
             compression: {enabled: false, threshold: 2, target_ratio: 0.01, protect_last_n: 0, protect_first_n: -3, in_place: false}\n\
             approvals: {deny: ['git push*', 7]}\n\
             command_allowlist: [make test]\n\
             terminal: {timeout: 9999}\n\
             auxiliary: {title_generation: {enabled: false}}\n",
        );
        assert_eq!(s.max_turns, 1);
        assert_eq!(s.api_max_retries, 20);
        assert_eq!(s.retry_backoff, Duration::from_millis(500));
        assert_eq!(s.context_length, 1);
        assert_eq!(
            s.compression,
            CompressionSettings {
                enabled: false,
                threshold: 0.95,
                target_ratio: 0.05,
                protect_last_n: 1,
                protect_first_n: 0,
                in_place: false,
            }
        );
        assert_eq!(s.deny_globs, ["git push*", "7"]);
        assert_eq!(s.allowlist, ["make test"]);
        assert_eq!(s.terminal_timeout, 600);
        assert!(!s.titles);
        let high = settings(
            "agent: {max_turns: 20000, api_max_retries: 0, retry_backoff_seconds: 99}\nterminal: {timeout: 0}\n",
        );
        assert_eq!((high.max_turns, high.api_max_retries), (10_000, 1));
        assert_eq!(high.retry_backoff, Duration::from_secs(60));
        assert_eq!(high.terminal_timeout, 1);
        let d = settings("");
        assert_eq!(d.retry_backoff, Duration::from_secs(2));
        assert_eq!((d.context_length, d.terminal_timeout), (256_000, 180));
        assert_eq!(
            (d.compression.threshold, d.compression.target_ratio),
            (0.5, 0.2)
        );
        assert_eq!(
            (d.compression.protect_last_n, d.compression.protect_first_n),
            (20, 3)
        );
        assert!(d.compression.enabled && d.titles);
        assert_eq!(d.skill_nudge_interval, 10);
    }

    #[test]
    fn the_trigger_follows_the_window_the_cap_and_the_threshold() {
        // A small window: at least 0.75 of it, at least 64,000.
        assert_eq!(
            settings("model: {context_length: 200000}\n").compaction_trigger(None),
            150_000
        );
        assert_eq!(
            settings("model: {context_length: 200000}\ncompression: {threshold: 0.9}\n")
                .compaction_trigger(None),
            180_000
        );
        // A large window keeps the threshold as set.
        assert_eq!(
            settings("model: {context_length: 1000000}\n").compaction_trigger(None),
            500_000
        );
        assert_eq!(
            settings("model: {context_length: 512000}\n").compaction_trigger(None),
            256_000
        );
        // An output cap at or above the window is ignored.
        let s = settings("model: {context_length: 100000}\n");
        assert_eq!(s.compaction_trigger(Some(100_000)), 75_000);
        assert_eq!(s.compaction_trigger(Some(20_000)), 64_000);
        // Below the 64,000 floor's reach: 85 % of the window, under the window.
        assert_eq!(
            settings("model: {context_length: 50000}\n").compaction_trigger(None),
            42_500
        );
        assert_eq!(
            settings("model: {context_length: 64000}\n").compaction_trigger(None),
            54_400
        );
        assert_eq!(
            settings("model: {context_length: 1}\n").compaction_trigger(None),
            0
        );
    }
}
