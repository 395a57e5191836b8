//! Rules checked in code rather than by a pattern: the folder's structure, hidden unicode,
//! correlated pairs, suppressions. They are catalogue entries so that `--explain`, SARIF,
//! baselines and suppressions treat them like any other rule.

use super::pattern;
use crate::guard::rule::{Category, Domain, Rule, Severity, Signal};

/// The ids the scanner's code emits.
pub mod ids {
    pub const SYMLINK_ESCAPE: &str = "symlink-escape";
    pub const BROKEN_SYMLINK: &str = "broken-symlink";
    pub const SYMLINK_LOOP: &str = "symlink-loop";
    pub const SYMLINK_TO_SECRET: &str = "symlink-to-secret";
    pub const SPECIAL_FILE: &str = "special-file";
    pub const OVERSIZED_FILE: &str = "oversized-file";
    pub const OVERSIZED_SKILL: &str = "oversized-skill";
    pub const TOO_MANY_FILES: &str = "too-many-files";
    pub const NATIVE_BINARY: &str = "native-binary";
    pub const BINARY_EXTENSION: &str = "binary-extension";
    pub const ARCHIVE_FILE: &str = "archive-file";
    pub const UNEXPECTED_EXECUTABLE: &str = "unexpected-executable";
    pub const UNREADABLE: &str = "unreadable";
    pub const INVALID_UTF8: &str = "invalid-utf8";
    pub const SCAN_TRUNCATED: &str = "scan-truncated";
    pub const TAG_CHARACTERS: &str = "unicode-tag-characters";
    pub const BIDI_CONTROL: &str = "bidi-control";
    pub const ZERO_WIDTH: &str = "zero-width-character";
    pub const VARIATION_SELECTORS: &str = "variation-selector-payload";
    pub const MIXED_SCRIPT: &str = "mixed-script-word";
    pub const TERMINAL_ESCAPE: &str = "terminal-escape";
    pub const SECRET_READ_THEN_SEND: &str = "secret-read-then-send";
    pub const DECODE_THEN_EXEC: &str = "decode-then-exec";
    pub const DOWNLOAD_THEN_EXEC: &str = "download-then-exec";
    pub const DISGUISE_CUE: &str = "sig-disguise";
    pub const SUPPRESSION_WITHOUT_REASON: &str = "suppression-without-reason";
    pub const SUPPRESSION_UNKNOWN_RULE: &str = "suppression-unknown-rule";
}

const fn fact(id: &'static str, category: Category, severity: Severity) -> Rule {
    Rule::base(id, category, severity, Domain::Fact)
}

/// Literals that show a line may hide something: first the joins of a split string, then
/// the words that come with an encoded payload. `sig-disguise` anchors on all of them; the
/// second reading (`expand`) tells the kinds apart by [`FIRST_DECODE_CUE`].
pub const DISGUISE_CUES: &[&str] = &[
    "'+'",
    "' + '",
    "\"+\"",
    "\" + \"",
    "' and '",
    "' plus '",
    "' with '",
    "base64",
    "b64",
    "decode",
    "-enc",
    "frombase64",
    "atob",
    "xxd",
    "hex",
    "unhexlify",
    "codecs",
    "rot13",
    "rot-13",
    "rot_13",
    "n-za-m",
    "chr(",
    "chr,",
    "charcode",
    "[char",
    "pack(",
];

/// Where the encoding words start in [`DISGUISE_CUES`].
pub const FIRST_DECODE_CUE: usize = 7;

pub const RULES: &[Rule] = &[
    Rule {
        title: "symlink leaving the skill",
        why: "a symlink points outside the skill folder: installing the skill exposes or overwrites whatever it points at",
        fix: "copy the file into the skill instead of linking it",
        upstream: &["symlink_escape"],
        ..fact(ids::SYMLINK_ESCAPE, Category::Traversal, Severity::Critical)
    },
    Rule {
        title: "symlink to a credential store",
        why: "a symlink names a credential store (SSH or cloud keys, a keychain, password hashes): whoever reads the skill's file reads the secret, on any machine that has it",
        fix: "remove the link; a skill never needs a path into a credential store",
        ..fact(
            ids::SYMLINK_TO_SECRET,
            Category::Exfiltration,
            Severity::Critical,
        )
    },
    Rule {
        title: "broken symlink",
        why: "a symlink whose target does not exist",
        fix: "remove the link or restore its target",
        upstream: &["broken_symlink"],
        ..fact(ids::BROKEN_SYMLINK, Category::Traversal, Severity::Medium)
    },
    Rule {
        title: "symlink loop",
        why: "symlinks that point at each other (or at a parent folder): tools that follow them never finish",
        fix: "remove the loop",
        upstream: &["broken_symlink"],
        ..fact(ids::SYMLINK_LOOP, Category::Traversal, Severity::Medium)
    },
    Rule {
        title: "device, socket or FIFO",
        why: "a device, socket or named pipe inside a skill: reading it can block forever or touch hardware",
        fix: "skills hold regular files only",
        ..fact(ids::SPECIAL_FILE, Category::Structural, Severity::High)
    },
    Rule {
        title: "oversized file",
        why: "a file over 256 KiB: too large to review, and large files hide things",
        fix: "split it, or move data out of the skill",
        upstream: &["oversized_file"],
        ..fact(ids::OVERSIZED_FILE, Category::Structural, Severity::Medium)
    },
    Rule {
        title: "oversized skill",
        why: "the skill's files add up to more than 1 MiB",
        fix: "move data and generated files out of the skill",
        upstream: &["oversized_skill"],
        ..fact(ids::OVERSIZED_SKILL, Category::Structural, Severity::High)
    },
    Rule {
        title: "too many files",
        why: "the skill has more than 50 files: more than anyone reviews",
        fix: "keep a skill to its SKILL.md and a few support files",
        upstream: &["too_many_files"],
        ..fact(ids::TOO_MANY_FILES, Category::Structural, Severity::Medium)
    },
    Rule {
        title: "native executable",
        why: "a compiled program (ELF, Mach-O, PE) inside a skill: nobody can review what it does",
        fix: "ship source code, or install the tool from its official package",
        upstream: &["binary_file"],
        ..fact(ids::NATIVE_BINARY, Category::Structural, Severity::Critical)
    },
    Rule {
        title: "binary file extension",
        why: "a file named like a program or library (.exe, .so, .dll, .dylib, .bin…)",
        fix: "remove it, or ship source code",
        upstream: &["binary_file"],
        ..fact(ids::BINARY_EXTENSION, Category::Structural, Severity::High)
    },
    Rule {
        title: "archive",
        why: "an archive inside a skill: its content is not scanned",
        fix: "ship the files unpacked",
        ..fact(ids::ARCHIVE_FILE, Category::Structural, Severity::Medium)
    },
    Rule {
        title: "unexpected executable bit",
        why: "a file is executable but is not a script",
        fix: "chmod -x it",
        upstream: &["unexpected_executable"],
        ..fact(
            ids::UNEXPECTED_EXECUTABLE,
            Category::Structural,
            Severity::Medium,
        )
    },
    Rule {
        title: "unreadable file or folder",
        why: "a file or folder could not be read, so it was not scanned",
        fix: "fix its permissions and scan again",
        ..fact(ids::UNREADABLE, Category::Structural, Severity::Medium)
    },
    Rule {
        title: "invalid UTF-8",
        why: "text that is not valid UTF-8 (scanned anyway, with the bad bytes replaced); Hermes's own scanner skips such files entirely",
        fix: "save the file as UTF-8",
        ..fact(ids::INVALID_UTF8, Category::Structural, Severity::Medium)
    },
    Rule {
        title: "file too large to scan",
        why: "a file larger than the scan limit: only its beginning was scanned",
        fix: "remove it from the skill",
        ..fact(ids::SCAN_TRUNCATED, Category::Structural, Severity::High)
    },
    Rule {
        title: "unicode tag characters",
        why: "invisible unicode tag characters (U+E0000 block) spell out hidden text that the model reads and people don't see",
        fix: "delete them; nothing legitimate in a skill uses tag characters",
        upstream: &["invisible_unicode"],
        ..fact(ids::TAG_CHARACTERS, Category::Injection, Severity::Critical)
    },
    Rule {
        title: "bidirectional control character",
        why: "a bidirectional control character reorders how text displays, so what people read differs from what the model and the shell get (Trojan Source)",
        fix: "delete it",
        upstream: &["invisible_unicode"],
        ..fact(ids::BIDI_CONTROL, Category::Injection, Severity::High)
    },
    Rule {
        title: "zero-width character",
        why: "a zero-width character hides inside words: it splits keywords past filters and hides text",
        fix: "delete it",
        upstream: &["invisible_unicode"],
        ..fact(ids::ZERO_WIDTH, Category::Injection, Severity::High)
    },
    Rule {
        title: "variation selectors carrying data",
        why: "a run of invisible variation selectors: they can encode bytes that ride along with visible text",
        fix: "delete them",
        ..fact(
            ids::VARIATION_SELECTORS,
            Category::Injection,
            Severity::High,
        )
    },
    Rule {
        title: "homoglyph in a word",
        why: "a word mixes Latin letters with look-alike Cyrillic or Greek ones: it reads as one thing and is another (a spoofed domain, command or keyword)",
        fix: "retype the word in one script",
        ..fact(ids::MIXED_SCRIPT, Category::Injection, Severity::High)
    },
    Rule {
        title: "terminal control sequence",
        why: "raw terminal escape or control characters: printed in a terminal they can hide or rewrite text",
        fix: "delete them",
        ..fact(ids::TERMINAL_ESCAPE, Category::Obfuscation, Severity::High)
    },
    Rule {
        title: "reads a secret, then sends data out",
        why: "reads credentials and sends data over the network in the same skill: the shape of credential theft",
        fix: "don't read credential stores; send only what the user asked to send",
        ..fact(
            ids::SECRET_READ_THEN_SEND,
            Category::Exfiltration,
            Severity::Critical,
        )
    },
    Rule {
        title: "decodes, then executes",
        why: "decodes data and then executes it: the code that runs is hidden from review",
        fix: "ship the code in plain text",
        ..fact(
            ids::DECODE_THEN_EXEC,
            Category::Obfuscation,
            Severity::Critical,
        )
    },
    Rule {
        title: "downloads, then executes",
        why: "downloads a file and then runs it: remote code runs without review",
        fix: "pin and verify the download (checksum or signature) before running it",
        ..fact(
            ids::DOWNLOAD_THEN_EXEC,
            Category::SupplyChain,
            Severity::Critical,
        )
    },
    Rule {
        title: "suppression without a reason",
        why: "a hermes-scan suppression without a reason is ignored",
        fix: "add the reason after `--`: `hermes-scan: allow RULE -- why this is fine`",
        ..fact(
            ids::SUPPRESSION_WITHOUT_REASON,
            Category::Structural,
            Severity::Medium,
        )
    },
    Rule {
        title: "suppression of an unknown rule",
        why: "a hermes-scan suppression names a rule that does not exist",
        fix: "check the id with `hermes-skill-scan --explain RULE`",
        ..fact(
            ids::SUPPRESSION_UNKNOWN_RULE,
            Category::Structural,
            Severity::Low,
        )
    },
];

/// Halves of correlated pairs that are not findings on their own.
pub const SIGNALS: &[Rule] = &[
    Rule {
        title: "sends data over the network",
        why: "sends data over the network",
        fix: "nothing on its own",
        detect: pattern(
            &[
                "curl",
                "wget",
                ".post(",
                ".put(",
                ".patch(",
                "method",
                "nc ",
                "ncat",
                "netcat",
                "/dev/tcp",
                "scp ",
                "rsync ",
                "smtplib",
                "sendmail",
                "urlopen",
                ".send(",
                "-infile",
                "-body",
                "invoke-restmethod",
                "invoke-webrequest",
                "fetch(",
                "gist create",
                "?",
                "&",
            ],
            r"\bcurl\b[^\n]*(?:\s-d\b|\s--data(?:-\w+)?\b|\s-F\b|\s--form\b|\s-T\b|\s--upload-file\b|\s-X\s*(?:POST|PUT)\b)|\bwget\b[^\n]*--post-(?:data|file)\b|\b(?:requests|httpx|session|client|axios)\.(?:post|put|patch)\(|\bfetch\s*\([^\n]*method\s*:\s*[\x22'](?:POST|PUT)|\b(?:nc|ncat|netcat)\s+(?:-\w+\s+)*[\w.$-]+\s+\d+|/dev/tcp/|\bscp\s+[^\n]*\s[\w.-]+@[\w.-]+:|\brsync\s+[^\n]*\s[\w.-]+@[\w.-]+:|\bsmtplib\b|\bsendmail\b|\burlopen\s*\([^\n]*data\s*=|\.send\(|\b(?:invoke-restmethod|irm|invoke-webrequest|iwr)\b[^\n]*(?:-infile\b|-body\b|-method\s+(?:post|put)\b)|\bfetch\s*\([^\n]*method\s*:\s*['\x22]?(?:post|put)|\bgh\s+gist\s+create\b|\b(?:curl|wget)\b[^\n]*https?://[^\s'\x22]*[?&][\w-]+=['\x22]?\$",
        ),
        signal: Some(Signal::NetworkSend),
        report: false,
        examples: &[
            "curl -X POST -d @- https://x.example",
            "requests.post(url, data=d)",
            "nc 203.0.113.1 443",
        ],
        clean: &["curl https://x.example/get"],
        ..Rule::base(
            "sig-network-send",
            Category::Exfiltration,
            Severity::Medium,
            Domain::Command,
        )
    },
    Rule {
        title: "may hide something",
        why: "a string split to hide a word, or a word that comes with an encoded payload",
        fix: "nothing on its own",
        // Found by the same pass as every rule, so the second reading (expand) looks only at
        // these lines and costs no pass of its own.
        detect: pattern(
            DISGUISE_CUES,
            r"'\+'|' \+ '|\x22\+\x22|\x22 \+ \x22|' and '|' plus '|' with '|base64|b64|decode|-enc|frombase64|atob|xxd|hex|unhexlify|codecs|rot13|rot-13|rot_13|n-za-m|chr\(|chr,|charcode|\[char|pack\(",
        ),
        report: false,
        examples: &["echo aGk= | base64 -d", "('ie'+'x')"],
        clean: &["plain words"],
        ..Rule::base(
            ids::DISGUISE_CUE,
            Category::Obfuscation,
            Severity::Low,
            Domain::Fact,
        )
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    /// The cue rule's pattern spells out its anchors: a cue added to one and not the other
    /// would be found by the anchors and never reported (or the reverse).
    #[test]
    fn the_disguise_pattern_is_the_list_of_cues() {
        let Some(rule) = crate::guard::catalogue::rule(ids::DISGUISE_CUE) else {
            panic!("the cue rule is in the catalogue");
        };
        let crate::guard::rule::Detect::Pattern { pattern, .. } = rule.detect else {
            panic!("the cue rule is a pattern");
        };
        let escaped: Vec<String> = DISGUISE_CUES
            .iter()
            .map(|cue| {
                cue.replace('+', r"\+")
                    .replace('(', r"\(")
                    .replace('[', r"\[")
                    .replace('"', r"\x22")
            })
            .collect();
        assert_eq!(pattern, escaped.join("|"));
        assert_eq!(DISGUISE_CUES[FIRST_DECODE_CUE], "base64");
    }
}
