//! Whether a skill is ready to use: the environment variables it declares
//! (`required_environment_variables`, `setup.collect_secrets`, legacy
//! `prerequisites.env_vars`), whether each is set in `$HERMES_HOME/.env` or the process, and
//! the credential files it needs under the home. `skill_view` reports these so the agent can
//! tell the user what is missing.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Map, Value as Json};

use crate::home::{Home, resolve_lenient};
use crate::yaml::{Mapping, Value};

static ENV_NAME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[A-Za-z_][A-Za-z0-9_]*$").expect("static regex"));

/// What Hermes tells a gateway user who cannot be prompted for a secret.
pub const GATEWAY_SETUP_HINT: &str = "Secure secret entry is not supported over messaging. Load this skill in the local CLI to be prompted, or add the key to ~/.hermes/.env manually.";

/// Terminal backends whose skills need their requirements inside the remote environment.
pub const REMOTE_BACKENDS: [&str; 5] = ["docker", "singularity", "modal", "ssh", "daytona"];

/// `load_env()`: `KEY=value` lines of `$HERMES_HOME/.env` (`export ` allowed, quotes
/// stripped, blanks and `#` comments skipped).
pub fn load_env(home: &Home) -> BTreeMap<String, String> {
    let mut vars = BTreeMap::new();
    let Ok(text) = std::fs::read_to_string(home.env_file()) else {
        return vars;
    };
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || !line.contains('=') {
            continue;
        }
        let line = line.strip_prefix("export ").unwrap_or(line);
        let (key, value) = line.split_once('=').unwrap_or((line, ""));
        vars.insert(
            key.trim().to_string(),
            value.trim().trim_matches(['"', '\'']).to_string(),
        );
    }
    vars
}

/// `_is_env_var_persisted`: set non-empty in `.env`, or — only when `.env` does not name it —
/// in the process environment.
pub fn is_persisted(name: &str, env: &BTreeMap<String, String>) -> bool {
    match env.get(name) {
        Some(value) => !value.is_empty(),
        None => std::env::var_os(name).is_some_and(|v| !v.is_empty()),
    }
}

fn text_of(value: Option<&Value>) -> Option<String> {
    value.filter(|v| v.is_truthy()).map(Value::py_str)
}

/// `_get_required_environment_variables`: normalised `{name, prompt, [help],
/// [required_for], [optional]}` entries, deduplicated by name, invalid names dropped.
pub fn required_env_vars(fields: &Mapping) -> Vec<Map<String, Json>> {
    let setup = fields.get("setup").and_then(Value::as_map);
    let setup_help = setup
        .and_then(|s| s.get("help"))
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|h| !h.is_empty())
        .map(String::from);
    let mut out: Vec<Map<String, Json>> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    let mut push = |name: Option<String>,
                    prompt: Option<String>,
                    help: Option<Json>,
                    required_for: Option<&Value>,
                    optional: bool| {
        let name = name.unwrap_or_default().trim().to_string();
        if name.is_empty() || seen.contains(&name) || !ENV_NAME.is_match(&name) {
            return;
        }
        let mut entry = Map::new();
        let prompt = prompt.unwrap_or_else(|| format!("Enter value for {name}"));
        entry.insert("name".into(), Json::String(name.clone()));
        entry.insert("prompt".into(), Json::String(prompt.trim().to_string()));
        let help = help.or_else(|| setup_help.clone().map(Json::String));
        if let Some(Json::String(h)) = help
            && !h.trim().is_empty()
        {
            entry.insert("help".into(), Json::String(h.trim().to_string()));
        }
        if let Some(Value::Str(r)) = required_for
            && !r.trim().is_empty()
        {
            entry.insert("required_for".into(), Json::String(r.trim().to_string()));
        }
        if optional {
            entry.insert("optional".into(), Json::Bool(true));
        }
        seen.insert(name);
        out.push(entry);
    };
    let required = match fields.get("required_environment_variables") {
        Some(Value::Map(m)) => vec![Value::Map(m.clone())],
        Some(Value::Seq(items)) => items.clone(),
        _ => Vec::new(),
    };
    for item in &required {
        match item {
            Value::Str(name) => push(Some(name.clone()), None, None, None, false),
            Value::Map(entry) => {
                let name = text_of(entry.get("name")).or_else(|| text_of(entry.get("env_var")));
                let help = entry
                    .get("help")
                    .filter(|v| v.is_truthy())
                    .or_else(|| entry.get("provider_url").filter(|v| v.is_truthy()))
                    .or_else(|| entry.get("url").filter(|v| v.is_truthy()))
                    .map(Value::to_json);
                push(
                    name,
                    text_of(entry.get("prompt")),
                    help,
                    entry.get("required_for"),
                    entry.get("optional").is_some_and(Value::is_truthy),
                );
            }
            _ => {}
        }
    }
    // setup.collect_secrets: a mapping or a list of mappings with a non-empty env_var.
    let secrets = match setup.and_then(|s| s.get("collect_secrets")) {
        Some(Value::Map(m)) => vec![Value::Map(m.clone())],
        Some(Value::Seq(items)) => items.clone(),
        _ => Vec::new(),
    };
    for item in &secrets {
        let Value::Map(entry) = item else { continue };
        let Some(env_var) = text_of(entry.get("env_var"))
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
        else {
            continue;
        };
        let prompt = text_of(entry.get("prompt"))
            .unwrap_or_else(|| format!("Enter value for {env_var}"))
            .trim()
            .to_string();
        let provider_url = text_of(entry.get("provider_url"))
            .or_else(|| text_of(entry.get("url")))
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty());
        let help = provider_url
            .or_else(|| setup_help.clone())
            .map(Json::String);
        push(Some(env_var), Some(prompt), help, None, false);
    }
    // prerequisites.env_vars (legacy): a string or a list of names.
    if let Some(Value::Map(prereqs)) = fields.get("prerequisites").filter(|v| v.is_truthy()) {
        let names: Vec<String> = match prereqs.get("env_vars") {
            Some(v) if !v.is_truthy() => Vec::new(),
            Some(Value::Str(s)) => vec![s.clone()],
            Some(Value::Seq(items)) => items
                .iter()
                .map(Value::py_str)
                .filter(|s| !s.trim().is_empty())
                .collect(),
            _ => Vec::new(),
        };
        for name in names {
            push(Some(name), None, None, None, false);
        }
    }
    out
}

/// `register_credential_files`: the entries of `required_credential_files` that are not a
/// readable file inside the home (absolute, escaping, missing or a credential store).
pub fn missing_credential_files(home: &Home, entries: &Value) -> Vec<String> {
    let Value::Seq(items) = entries else {
        return Vec::new();
    };
    let mut missing = Vec::new();
    for item in items {
        let rel = match item {
            Value::Str(s) => s.trim().to_string(),
            Value::Map(m) => text_of(m.get("path"))
                .or_else(|| text_of(m.get("name")))
                .unwrap_or_default()
                .trim()
                .to_string(),
            _ => continue,
        };
        if rel.is_empty() {
            continue;
        }
        if !credential_file_ok(home, &rel) {
            missing.push(rel);
        }
    }
    missing
}

fn credential_file_ok(home: &Home, rel: &str) -> bool {
    if Path::new(rel).is_absolute() {
        return false;
    }
    let root = resolve_lenient(home.root());
    let resolved = resolve_lenient(&home.root().join(rel));
    if !resolved.starts_with(&root) || !resolved.is_file() {
        return false;
    }
    !is_credential_store(&root, &resolved)
}

/// The read deny-list of `agent.file_safety`: hub caches, the home's secret stores and
/// project `.env` files are never handed to a skill.
fn is_credential_store(root: &Path, resolved: &Path) -> bool {
    if resolved.starts_with(root.join("skills").join(".hub"))
        || resolved.starts_with(root.join("mcp-tokens"))
    {
        return true;
    }
    let stores = [
        "auth.json",
        "auth.lock",
        ".anthropic_oauth.json",
        ".env",
        "webhook_subscriptions.json",
        "auth/google_oauth.json",
        "cache/bws_cache.json",
    ];
    if stores
        .iter()
        .any(|s| resolve_lenient(&root.join(s)) == resolved)
    {
        return true;
    }
    let base = resolved
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    [
        ".env",
        ".env.local",
        ".env.development",
        ".env.production",
        ".env.test",
        ".env.staging",
        ".envrc",
    ]
    .contains(&base.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(yaml: &str) -> Mapping {
        crate::skills::frontmatter::parse(&format!("---\n{yaml}---\nbody")).fields
    }

    #[test]
    fn env_vars_from_all_three_sources() {
        let f = fields(
            "required_environment_variables:\n  - API_KEY\n  - {name: TOKEN, help: 'get one', optional: yes}\n  - 'bad name'\nsetup:\n  help: Setup help\n  collect_secrets: {env_var: SECRET, url: https://x}\nprerequisites:\n  env_vars: [API_KEY, OLD]\n",
        );
        let got = Json::Array(
            required_env_vars(&f)
                .into_iter()
                .map(Json::Object)
                .collect(),
        );
        assert_eq!(
            got,
            serde_json::json!([
                {"name": "API_KEY", "prompt": "Enter value for API_KEY", "help": "Setup help"},
                {"name": "TOKEN", "prompt": "Enter value for TOKEN", "help": "get one", "optional": true},
                {"name": "SECRET", "prompt": "Enter value for SECRET", "help": "https://x"},
                {"name": "OLD", "prompt": "Enter value for OLD", "help": "Setup help"},
            ])
        );
    }

    #[test]
    fn dotenv_and_credential_files() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        std::fs::write(home.env_file(), "# c\nexport A=\"1\"\nB=\n").expect("env");
        std::fs::write(dir.path().join("token.json"), "{}").expect("tok");
        let env = load_env(&home);
        assert!(is_persisted("A", &env));
        assert!(!is_persisted("B", &env));
        let entries = fields(
            "required_credential_files: [token.json, missing.json, ../x, /etc/passwd, .env, {path: token.json}]\n",
        );
        let missing = missing_credential_files(
            &home,
            entries.get("required_credential_files").expect("list"),
        );
        assert_eq!(missing, vec!["missing.json", "../x", "/etc/passwd", ".env"]);
    }
}
