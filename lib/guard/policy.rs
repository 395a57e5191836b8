//! Verdicts and the install decision: how findings become `safe`/`caution`/`dangerous`, how
//! a source becomes a trust level, and the trust × verdict table Hermes installs by.

use std::fmt;

use serde::Serialize;

use super::rule::Severity;

/// A skill's verdict. Ordered: `Safe < Caution < Dangerous`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Safe,
    Caution,
    Dangerous,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Safe => "safe",
            Verdict::Caution => "caution",
            Verdict::Dangerous => "dangerous",
        }
    }

    /// Any critical finding → dangerous; else any high → caution; else safe.
    pub fn of(severities: impl IntoIterator<Item = Severity>) -> Verdict {
        let worst = severities.into_iter().max();
        match worst {
            Some(Severity::Critical) => Verdict::Dangerous,
            Some(Severity::High) => Verdict::Caution,
            _ => Verdict::Safe,
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a skill comes from, which decides how much of a verdict to tolerate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Trust {
    /// Ships with Hermes.
    Builtin,
    /// A repository Hermes trusts (openai/skills, anthropics/skills, huggingface/skills,
    /// NVIDIA/skills).
    Trusted,
    /// Anyone else.
    Community,
    /// Written by the agent itself.
    AgentCreated,
}

/// The repositories Hermes 0.19.0 trusts.
pub const TRUSTED_REPOS: [&str; 4] = [
    "openai/skills",
    "anthropics/skills",
    "huggingface/skills",
    "NVIDIA/skills",
];

impl Trust {
    pub fn as_str(self) -> &'static str {
        match self {
            Trust::Builtin => "builtin",
            Trust::Trusted => "trusted",
            Trust::Community => "community",
            Trust::AgentCreated => "agent-created",
        }
    }

    /// The trust level of a hub source identifier, as Hermes resolves it: one `skills-sh/`
    /// style alias prefix stripped, `agent-created`, `official` → builtin, a trusted
    /// repository or a path inside one → trusted, anything else → community. Repository
    /// names compare case-insensitively, as GitHub does (Hermes compares them exactly, so
    /// `nvidia/skills/x` is community there).
    pub fn from_source(source: &str) -> Trust {
        let source = ["skills-sh/", "skills.sh/", "skils-sh/", "skils.sh/"]
            .iter()
            .find_map(|p| source.strip_prefix(p))
            .unwrap_or(source);
        if source == "agent-created" {
            return Trust::AgentCreated;
        }
        if source == "official" {
            return Trust::Builtin;
        }
        let lower = source.to_ascii_lowercase();
        let trusted = TRUSTED_REPOS.iter().any(|repo| {
            let repo = repo.to_ascii_lowercase();
            lower == repo
                || lower
                    .strip_prefix(&repo)
                    .is_some_and(|rest| rest.starts_with('/'))
        });
        if trusted {
            Trust::Trusted
        } else {
            Trust::Community
        }
    }
}

impl fmt::Display for Trust {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What to do about installing a skill.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Install {
    Allow,
    Block,
    /// Ask the user (or, for the agent, report the findings and let it retry).
    Ask,
}

impl Install {
    pub fn as_str(self) -> &'static str {
        match self {
            Install::Allow => "allow",
            Install::Block => "block",
            Install::Ask => "ask",
        }
    }
}

impl fmt::Display for Install {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Hermes's install policy: rows trust, columns safe / caution / dangerous.
pub fn install(trust: Trust, verdict: Verdict) -> Install {
    use Install::{Allow, Ask, Block};
    let row = match trust {
        Trust::Builtin => [Allow, Allow, Allow],
        Trust::Trusted => [Allow, Allow, Block],
        Trust::Community => [Allow, Block, Block],
        Trust::AgentCreated => [Allow, Allow, Ask],
    };
    row[verdict as usize]
}

/// The install decision with Hermes's wording (`should_allow_install`): `Some(true)` allow,
/// `Some(false)` block, `None` ask. `force` overrides a block except a dangerous verdict from
/// a community or trusted source.
pub fn decide(
    trust: Trust,
    verdict: Verdict,
    findings: usize,
    force: bool,
) -> (Option<bool>, String) {
    match install(trust, verdict) {
        Install::Allow => (
            Some(true),
            format!("Allowed ({trust} source, {verdict} verdict)"),
        ),
        decision => {
            let unforceable =
                verdict == Verdict::Dangerous && matches!(trust, Trust::Community | Trust::Trusted);
            if force && !unforceable {
                return (
                    Some(true),
                    format!("Force-installed despite {verdict} verdict ({findings} findings)"),
                );
            }
            if decision == Install::Ask {
                return (
                    None,
                    format!(
                        "Requires confirmation ({trust} source + {verdict} verdict, {findings} findings)"
                    ),
                );
            }
            if unforceable {
                (
                    Some(false),
                    format!(
                        "Blocked ({trust} source + dangerous verdict, {findings} findings). --force does not override a dangerous verdict."
                    ),
                )
            } else {
                (
                    Some(false),
                    format!(
                        "Blocked ({trust} source + {verdict} verdict, {findings} findings). Use --force to override."
                    ),
                )
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The words the install decision is printed and recorded with (`decision` in JSON).
    #[test]
    fn install_decisions_print_as_their_words() {
        let words: Vec<(&str, String)> = [Install::Allow, Install::Block, Install::Ask]
            .iter()
            .map(|d| (d.as_str(), d.to_string()))
            .collect();
        assert_eq!(
            words,
            vec![
                ("allow", "allow".to_string()),
                ("block", "block".to_string()),
                ("ask", "ask".to_string())
            ]
        );
    }

    #[test]
    fn verdicts() {
        assert_eq!(Verdict::of([]), Verdict::Safe);
        assert_eq!(
            Verdict::of([Severity::Medium, Severity::Low]),
            Verdict::Safe
        );
        assert_eq!(Verdict::of([Severity::High]), Verdict::Caution);
        assert_eq!(
            Verdict::of([Severity::High, Severity::Critical]),
            Verdict::Dangerous
        );
    }

    #[test]
    fn trust_from_source() {
        assert_eq!(Trust::from_source("openai/skills"), Trust::Trusted);
        assert_eq!(
            Trust::from_source("skills-sh/anthropics/skills/pdf"),
            Trust::Trusted
        );
        assert_eq!(Trust::from_source("nvidia/skills/x"), Trust::Trusted);
        assert_eq!(Trust::from_source("openai/skills-evil"), Trust::Community);
        assert_eq!(Trust::from_source("official"), Trust::Builtin);
        assert_eq!(Trust::from_source("official/x"), Trust::Community);
        assert_eq!(Trust::from_source("agent-created"), Trust::AgentCreated);
    }

    #[test]
    fn install_table_and_wording() {
        assert_eq!(install(Trust::Community, Verdict::Caution), Install::Block);
        assert_eq!(
            install(Trust::AgentCreated, Verdict::Dangerous),
            Install::Ask
        );
        assert_eq!(install(Trust::Trusted, Verdict::Caution), Install::Allow);
        assert_eq!(
            decide(Trust::Community, Verdict::Dangerous, 2, true),
            (
                Some(false),
                "Blocked (community source + dangerous verdict, 2 findings). --force does not override a dangerous verdict.".into()
            )
        );
        assert_eq!(
            decide(Trust::Community, Verdict::Caution, 1, true).1,
            "Force-installed despite caution verdict (1 findings)"
        );
        assert_eq!(
            decide(Trust::AgentCreated, Verdict::Dangerous, 3, false),
            (
                None,
                "Requires confirmation (agent-created source + dangerous verdict, 3 findings)"
                    .into()
            )
        );
    }
}
