//! Crypto mining.

use super::pattern;
use crate::guard::rule::{Category::Mining, Domain, Rule, Severity};

pub const RULES: &[Rule] = &[
    Rule {
        title: "cryptocurrency miner",
        why: "names a cryptocurrency miner or mining-pool protocol: the machine would mine for someone else",
        fix: "remove it",
        upstream: &["crypto_mining"],
        detect: pattern(
            &[
                "xmrig",
                "xmr-stak",
                "cpuminer",
                "minerd",
                "ethminer",
                "nbminer",
                "phoenixminer",
                "lolminer",
                "coinhive",
                "cryptonight",
                "stratum+",
            ],
            r"\b(?:xmrig|xmr-stak|cpuminer|minerd|ethminer|nbminer|phoenixminer|lolminer|coinhive|cryptonight)\b|\bstratum\+(?:tcp|ssl|tls)://",
        ),
        examples: &["./xmrig -o stratum+tcp://pool.example:3333 -u wallet"],
        clean: &["the miner's hat"],
        ..Rule::base("crypto-miner", Mining, Severity::Critical, Domain::Command)
    },
    Rule {
        title: "mining vocabulary",
        why: "mining vocabulary (hash rate, nonce difficulty, Monero)",
        fix: "nothing, if the skill is about cryptocurrency",
        upstream: &["mining_indicators", "crypto_mining"],
        detect: pattern(
            &["hashrate", "hash rate", "nonce", "monero", "mining pool"],
            r"\bhash\s?rate\b|\bnonce\b[^\n]*\bdifficulty\b|\bmonero\b|\bmining\s+pool\b",
        ),
        shadowed_by: &["crypto-miner"],
        examples: &["report the hashrate every minute"],
        clean: &["a nonce for the CSP header"],
        ..Rule::base(
            "mining-vocabulary",
            Mining,
            Severity::Medium,
            Domain::Command,
        )
    },
];
