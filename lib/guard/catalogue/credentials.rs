//! Credential exposure: keys and tokens written into the skill itself.

use super::helpers::is_placeholder;
use super::{exact, gated};
use crate::guard::rule::{Candidate, Category::CredentialExposure, Domain, Gate, Rule, Severity};

fn real_value(c: &Candidate<'_>) -> Gate {
    let m = c.matched();
    let value = m
        .rsplit(['=', ':'])
        .next()
        .unwrap_or(m)
        .trim()
        .trim_matches(['"', '\'', '`']);
    if is_placeholder(value) {
        Gate::Drop
    } else {
        Gate::Keep
    }
}

fn real_token(c: &Candidate<'_>) -> Gate {
    let m = c.matched();
    if m.contains("EXAMPLE") || is_placeholder(m) {
        Gate::Drop
    } else {
        Gate::Keep
    }
}

fn pem_body(c: &Candidate<'_>) -> Gate {
    let rest = c.after().trim();
    let body = if rest.len() > 40 {
        rest
    } else {
        c.next_line.unwrap_or("").trim()
    };
    let looks_like_key = body.len() >= 40
        && body.bytes().all(|b| {
            b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=' | b'\\' | b'n' | b'"')
        });
    if looks_like_key {
        Gate::Keep
    } else {
        Gate::Lower(3, "a PEM header without key material (a format example)")
    }
}

pub const RULES: &[Rule] = &[
    Rule {
        title: "private key",
        why: "a private key is embedded in the skill: anyone who installs it has the key",
        fix: "remove the key, rotate it, and load keys from the user's key store",
        upstream: &["embedded_private_key"],
        detect: gated(
            &["private key"],
            r"-----BEGIN\s+(?:RSA\s+|EC\s+|DSA\s+|OPENSSH\s+|ENCRYPTED\s+|PGP\s+)?PRIVATE\s+KEY(?:\s+BLOCK)?-----",
            pem_body,
        ),
        examples: &[
            "-----BEGIN OPENSSH PRIVATE KEY-----b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2g",
        ],
        clean: &["-----BEGIN PUBLIC KEY-----"],
        ..Rule::base(
            "private-key",
            CredentialExposure,
            Severity::Critical,
            Domain::Secret,
        )
    },
    Rule {
        title: "AWS access key id",
        why: "an AWS access key id is embedded in the skill",
        fix: "remove and rotate it; use the AWS credential chain",
        upstream: &["aws_access_key_leaked"],
        detect: exact(
            &["akia", "asia"],
            r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",
            Some(real_token),
        ),
        examples: &["aws_access_key_id = AKIAZ3MSJV7TQ4XR2PLN"],
        clean: &["AKIAIOSFODNN7EXAMPLE", "akiaz3msjv7tq4xr2pln"],
        ..Rule::base(
            "aws-access-key",
            CredentialExposure,
            Severity::Critical,
            Domain::Secret,
        )
    },
    Rule {
        title: "GitHub token",
        why: "a GitHub token is embedded in the skill: it grants access to the owner's repositories",
        fix: "remove and revoke it; use gh auth or GITHUB_TOKEN from the environment",
        upstream: &["github_token_leaked"],
        detect: exact(
            &["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
            r"\b(?:gh[pousr]_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9_]{70,})\b",
            Some(real_token),
        ),
        examples: &["token: ghp_8fK2mQ9xLr4TzW1pVb7NcY3HdJ6sA0eGuI5o"],
        clean: &["ghp_your_github_token"],
        ..Rule::base(
            "github-token",
            CredentialExposure,
            Severity::Critical,
            Domain::Secret,
        )
    },
    Rule {
        title: "Anthropic API key",
        why: "an Anthropic API key is embedded in the skill",
        fix: "remove and revoke it; read ANTHROPIC_API_KEY from the environment",
        upstream: &["anthropic_key_leaked"],
        detect: exact(
            &["sk-ant-"],
            r"\bsk-ant-[A-Za-z0-9_-]{80,}",
            Some(real_token),
        ),
        examples: &[
            "sk-ant-api03-Q7x9LmN2pR4tV6yB8dF0hJ3kM5nP7rS9uW1xZ3aC5eG7iK9mO1qS3uW5yA7cE9gI1kM3oQ5sU7wY9aC1eG3iK5mO7qS9uAB12",
        ],
        clean: &["sk-ant-..."],
        ..Rule::base(
            "anthropic-key",
            CredentialExposure,
            Severity::Critical,
            Domain::Secret,
        )
    },
    Rule {
        title: "OpenAI-style API key",
        why: "an OpenAI-style secret key (sk-…) is embedded in the skill",
        fix: "remove and revoke it; read the key from the environment",
        upstream: &["openai_key_leaked"],
        detect: exact(
            &["sk-"],
            r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{32,}",
            Some(real_token),
        ),
        shadowed_by: &["anthropic-key"],
        examples: &["OPENAI_API_KEY=sk-proj-4fT9xQ2mLr7VbN1cZ8kH3sD6wJ0pY5gA"],
        clean: &[
            "sk-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            "task-abcdefghijklmnopqrstuvwxyz0123456789",
        ],
        ..Rule::base(
            "openai-key",
            CredentialExposure,
            Severity::Critical,
            Domain::Secret,
        )
    },
    Rule {
        title: "Slack, Google or Stripe key",
        why: "a Slack token, Google API key or live Stripe key is embedded in the skill",
        fix: "remove and revoke it; read it from the environment",
        detect: exact(
            &["xox", "aiza", "sk_live_", "rk_live_"],
            r"\bxox[abposr]-[0-9A-Za-z-]{10,}|\bAIza[0-9A-Za-z_-]{35}\b|\b[sr]k_live_[0-9A-Za-z]{24,}",
            Some(real_token),
        ),
        examples: &["SLACK_TOKEN=xoxb-2841937465-8Hq2LrX7mNp4"],
        clean: &["xoxb-your-token"],
        ..Rule::base(
            "service-token",
            CredentialExposure,
            Severity::Critical,
            Domain::Secret,
        )
    },
    Rule {
        title: "hard-coded secret",
        why: "a key, token or password is written into the skill",
        fix: "remove and rotate it; read it from the environment or a secret store",
        upstream: &["hardcoded_secret"],
        detect: gated(
            &[
                "api_key",
                "api-key",
                "apikey",
                "access_token",
                "access-token",
                "accesstoken",
                "auth_token",
                "auth-token",
                "authtoken",
                "secret",
                "password",
                "passwd",
            ],
            r#"(?:api[_-]?key|apikey|access[_-]?token|auth[_-]?token|secret(?:[_-]?key)?|client[_-]?secret|password|passwd)["']?\s*[:=]\s*["'][A-Za-z0-9+/=_.-]{16,}["']"#,
            real_value,
        ),
        shadowed_by: &[
            "aws-access-key",
            "github-token",
            "anthropic-key",
            "openai-key",
            "service-token",
        ],
        examples: &["API_KEY = \"9fQ2xLr7Vb1TzK0pWm4sNc8Hd\""],
        clean: &[
            "api_key = \"your_api_key_here_1234\"",
            "JWT_SECRET=\"development-secret-change-in-prod\"",
        ],
        ..Rule::base(
            "hardcoded-secret",
            CredentialExposure,
            Severity::Critical,
            Domain::Secret,
        )
    },
];
