//! The environment a contained command sees: an allowlist, so an API key or token that
//! hermes-chat holds never reaches a command (nor the model, through the command's output),
//! and the redaction of secret values that still turn up in output.

/// Variables every command gets when the parent has them: what shells, compilers and
/// terminals need to behave, nothing that authenticates.
const BASE: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LANGUAGE",
    "TERM",
    "COLORTERM",
    "NO_COLOR",
    "TZ",
    "PWD",
    "EDITOR",
    "VISUAL",
    "PAGER",
    "COLUMNS",
    "LINES",
    "HOSTNAME",
    "DISPLAY",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "RUSTUP_HOME",
    "CARGO_HOME",
    "GOPATH",
    "GOROOT",
    "JAVA_HOME",
    "VIRTUAL_ENV",
    "PYENV_ROOT",
    "NVM_DIR",
    "CI",
];

/// Name parts that mark a variable as a credential. Matched on `_`-separated words of the
/// upper-cased name, so `MONKEY` is not a key but `OPENAI_API_KEY` is.
const SECRET_WORDS: &[&str] = &[
    "KEY",
    "KEYS",
    "TOKEN",
    "TOKENS",
    "SECRET",
    "SECRETS",
    "PASSWORD",
    "PASSWD",
    "PASS",
    "CREDENTIAL",
    "CREDENTIALS",
    "AUTH",
    "COOKIE",
    "SESSION",
    "PAT",
    "APIKEY",
    "PRIVATE",
    "DSN",
];

/// Whether a variable's name says it holds a credential.
pub fn is_secret_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    upper.ends_with("APIKEY")
        || upper.ends_with("_PAT")
        || upper
            .split(['_', '-', '.'])
            .any(|word| SECRET_WORDS.contains(&word))
}

/// Whether `name` may pass into a command: on the base list (or `LC_*`), or named by the
/// user. A user-named variable passes even when it looks secret: naming it is the consent.
pub fn is_allowed(name: &str, extra: &[String]) -> bool {
    extra.iter().any(|e| e == name)
        || (!is_secret_name(name) && (BASE.contains(&name) || name.starts_with("LC_")))
}

/// The environment of a command, from `parent` (ours), the extra names and the private temp
/// dir, which becomes `TMPDIR` (and the caches' home, since `~` is not writable).
pub fn child_env(
    parent: impl IntoIterator<Item = (String, String)>,
    extra: &[String],
    temp_dir: &str,
) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = parent
        .into_iter()
        .filter(|(k, _)| is_allowed(k, extra))
        .collect();
    env.retain(|(k, _)| k != "TMPDIR");
    env.push(("TMPDIR".into(), temp_dir.into()));
    for (name, sub) in [
        ("XDG_CACHE_HOME", "cache"),
        ("npm_config_cache", "npm-cache"),
    ] {
        if !env.iter().any(|(k, _)| k == name) {
            env.push((name.into(), format!("{temp_dir}/{sub}")));
        }
    }
    env
}

/// Secret values we know of (our own credential variables, the values in HERMES_HOME/.env),
/// replaced in command output before it is stored, printed or sent.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    /// (value, name), longest value first so a value that contains another is replaced whole.
    secrets: Vec<(String, String)>,
}

/// Values shorter than this are too likely to occur by chance (`true`, a port number).
const MIN_SECRET_LEN: usize = 8;

impl Redactor {
    /// From `name=value` pairs; only the names that look secret are kept.
    pub fn new(pairs: impl IntoIterator<Item = (String, String)>) -> Redactor {
        let mut secrets: Vec<(String, String)> = pairs
            .into_iter()
            .filter(|(k, v)| is_secret_name(k) && v.trim().len() >= MIN_SECRET_LEN)
            .map(|(k, v)| (v.trim().to_string(), k))
            .collect();
        secrets.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then(a.1.cmp(&b.1)));
        secrets.dedup_by(|a, b| a.0 == b.0);
        Redactor { secrets }
    }

    /// Adds the variables of a dotenv file's text (`NAME=value`, `export NAME=value`, quoted
    /// or not), whatever their names: everything in HERMES_HOME/.env is a secret.
    pub fn add_dotenv(&mut self, text: &str) {
        for line in text.lines() {
            let line = line.trim();
            let line = line.strip_prefix("export ").unwrap_or(line);
            let Some((name, value)) = line.split_once('=') else {
                continue;
            };
            if name.trim().starts_with('#') {
                continue;
            }
            let value = value.trim();
            let value = value
                .strip_prefix('\'')
                .and_then(|v| v.strip_suffix('\''))
                .or_else(|| value.strip_prefix('"').and_then(|v| v.strip_suffix('"')))
                .unwrap_or(value);
            if value.len() >= MIN_SECRET_LEN && !self.secrets.iter().any(|(v, _)| v == value) {
                self.secrets
                    .push((value.to_string(), name.trim().to_string()));
            }
        }
        self.secrets
            .sort_by(|a, b| b.0.len().cmp(&a.0.len()).then(a.1.cmp(&b.1)));
    }

    pub fn is_empty(&self) -> bool {
        self.secrets.is_empty()
    }

    /// `text` with every known secret value replaced by `[REDACTED:NAME]`.
    pub fn redact(&self, text: &str) -> String {
        let mut out = text.to_string();
        for (value, name) in &self.secrets {
            if out.contains(value.as_str()) {
                out = out.replace(value.as_str(), &format!("[REDACTED:{name}]"));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn credential_names_are_recognised_by_their_words() {
        for name in [
            "OPENAI_API_KEY",
            "HERMES_API_KEY",
            "GITHUB_TOKEN",
            "AWS_SECRET_ACCESS_KEY",
            "DB_PASSWORD",
            "GH_PAT",
            "OPENROUTERAPIKEY",
            "aws_session_token",
            "SENTRY_DSN",
        ] {
            assert!(is_secret_name(name), "{name}");
        }
        for name in [
            "PATH",
            "MONKEY",
            "KEYBOARD_LAYOUT",
            "TOKENIZERS_PARALLELISM",
            "HOME",
        ] {
            assert!(!is_secret_name(name), "{name}");
        }
    }

    #[test]
    fn the_child_gets_the_allowlist_a_private_tmpdir_and_what_the_user_named() {
        let env = child_env(
            pairs(&[
                ("PATH", "/usr/bin"),
                ("HOME", "/h"),
                ("LC_ALL", "C"),
                ("OPENAI_API_KEY", "sk-123456789"),
                ("RANDOM_APP_SETTING", "x"),
                ("TMPDIR", "/tmp"),
                ("MY_TOKEN", "t-123456789"),
            ]),
            &["MY_TOKEN".to_string()],
            "/t/p",
        );
        assert_eq!(
            env,
            pairs(&[
                ("PATH", "/usr/bin"),
                ("HOME", "/h"),
                ("LC_ALL", "C"),
                ("MY_TOKEN", "t-123456789"),
                ("TMPDIR", "/t/p"),
                ("XDG_CACHE_HOME", "/t/p/cache"),
                ("npm_config_cache", "/t/p/npm-cache"),
            ])
        );
    }

    #[test]
    fn known_secret_values_are_redacted_longest_first() {
        let mut r = Redactor::new(pairs(&[
            ("OPENAI_API_KEY", "sk-abcdefgh"),
            ("LONGER_TOKEN", "sk-abcdefgh-and-more"),
            ("SHORT_KEY", "abc"),
            ("PATH", "/usr/bin:/bin:/usr/local/bin"),
        ]));
        r.add_dotenv("# comment\nexport FROM_DOTENV='dotenv-value-1'\nEMPTY=\n");
        assert_eq!(
            r.redact("a sk-abcdefgh-and-more b sk-abcdefgh c dotenv-value-1 abc /usr/bin:/bin:/usr/local/bin"),
            "a [REDACTED:LONGER_TOKEN] b [REDACTED:OPENAI_API_KEY] c [REDACTED:FROM_DOTENV] abc /usr/bin:/bin:/usr/local/bin"
        );
    }
}
