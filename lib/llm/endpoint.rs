//! Which endpoint, model and key a run uses, resolved as Hermes 0.19.0 resolves a generic
//! OpenAI-compatible endpoint (reference `agent` §2.1), with two overrides of our own above
//! everything: `HERMES_BASE_URL` and `HERMES_API_KEY`.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::home::Config;

/// Flags that override config.yaml for one run.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    pub model: Option<String>,
    pub provider: Option<String>,
    pub base_url: Option<String>,
}

/// The environment as the agent sees it: the process environment over `$HERMES_HOME/.env`
/// (Python loads `.env` without overriding variables that are already set).
#[derive(Debug, Clone, Default)]
pub struct Env {
    vars: BTreeMap<String, String>,
}

impl Env {
    pub fn load(env_file: &Path) -> Env {
        let mut vars = read_dotenv(env_file);
        for (k, v) in std::env::vars() {
            vars.insert(k, v);
        }
        Env { vars }
    }

    pub fn from_pairs(pairs: &[(&str, &str)]) -> Env {
        Env {
            vars: pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }
    }

    /// A set, non-blank variable.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.vars
            .get(name)
            .map(|v| v.trim())
            .filter(|v| !v.is_empty())
    }
}

/// `KEY=value` lines; `export`, quotes and comments as shells and python-dotenv write them.
pub fn read_dotenv(path: &Path) -> BTreeMap<String, String> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return BTreeMap::new();
    };
    text.lines()
        .filter_map(|line| {
            let line = line.trim();
            if line.starts_with('#') {
                return None;
            }
            let line = line.strip_prefix("export ").unwrap_or(line);
            let (key, value) = line.split_once('=')?;
            let value = value.trim();
            let value = if value.len() >= 2
                && ((value.starts_with('"') && value.ends_with('"'))
                    || (value.starts_with('\'') && value.ends_with('\'')))
            {
                &value[1..value.len() - 1]
            } else {
                value.split(" #").next().unwrap_or(value).trim()
            };
            Some((key.trim().to_string(), value.to_string()))
        })
        .collect()
}

/// Where a run's model calls go.
#[derive(Clone, PartialEq)]
pub struct Endpoint {
    /// The label in the system prompt and on the session row (`custom`, `openrouter`, …).
    pub provider: String,
    pub model: String,
    pub base_url: String,
    pub api_key: String,
    /// Where the key came from, for messages (never the key itself).
    pub key_source: String,
    pub max_tokens: Option<u64>,
    pub reasoning_effort: Option<String>,
}

impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Endpoint")
            .field("provider", &self.provider)
            .field("model", &self.model)
            .field("base_url", &self.base_url)
            .field("key_source", &self.key_source)
            .finish_non_exhaustive()
    }
}

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum EndpointError {
    #[error("no model configured")]
    NoModel,
    #[error("provider '{0}' is disabled in config.yaml (providers.{0}.enabled: false)")]
    Disabled(String),
    /// A base URL without `http://` or `https://`: no request could reach it.
    #[error("the base URL {0:?} has no http:// or https://")]
    NoScheme(String),
}

impl EndpointError {
    pub fn hint(&self) -> &'static str {
        match self {
            EndpointError::NoModel => {
                "pass --model, or set model.default (and model.base_url, provider: custom) in config.yaml"
            }
            EndpointError::Disabled(_) => "enable it, or pass --provider",
            EndpointError::NoScheme(_) => {
                "write it in full, e.g. http://localhost:8080/v1 for a server on this machine"
            }
        }
    }
}

const CUSTOM_ALIASES: [&str; 7] = [
    "custom",
    "ollama",
    "local",
    "vllm",
    "llamacpp",
    "llama.cpp",
    "llama-cpp",
];
const OPENROUTER: &str = "https://openrouter.ai/api/v1";

pub fn resolve(
    config: &Config,
    overrides: &Overrides,
    env: &Env,
) -> Result<Endpoint, EndpointError> {
    let raw = &config.raw().to_json();
    let model_cfg = &config.model;
    let model = overrides
        .model
        .clone()
        .filter(|m| !m.trim().is_empty())
        .or_else(|| Some(model_cfg.default.clone()).filter(|m| !m.trim().is_empty()))
        .ok_or(EndpointError::NoModel)?;

    let requested = overrides
        .provider
        .clone()
        .or_else(|| Some(model_cfg.provider.clone()).filter(|p| !p.is_empty()))
        .or_else(|| env.get("HERMES_INFERENCE_PROVIDER").map(str::to_string))
        .unwrap_or_else(|| "auto".to_string())
        .to_lowercase();
    let is_custom = CUSTOM_ALIASES.contains(&requested.as_str());

    let configured_url = Some(model_cfg.base_url.clone()).filter(|u| !u.trim().is_empty());
    let base_url = env
        .get("HERMES_BASE_URL")
        .map(str::to_string)
        .or_else(|| overrides.base_url.clone())
        .or_else(|| {
            is_custom
                .then(|| env.get("CUSTOM_BASE_URL").map(str::to_string))
                .flatten()
        })
        .or(configured_url)
        .or_else(|| env.get("OPENROUTER_BASE_URL").map(str::to_string))
        .unwrap_or_else(|| OPENROUTER.to_string());
    let base_url = base_url.trim().trim_end_matches('/').to_string();
    let lower = base_url.to_ascii_lowercase();
    if !lower.starts_with("http://") && !lower.starts_with("https://") {
        return Err(EndpointError::NoScheme(base_url));
    }
    let host = host_of(&base_url);

    // Hermes labels a non-cloud URL under provider auto "openrouter" (quirk Q12); a URL that
    // is not OpenRouter's is a custom endpoint, and we say so.
    let provider = if is_custom || (requested == "auto" && !host.ends_with("openrouter.ai")) {
        "custom".to_string()
    } else if requested == "auto" {
        "openrouter".to_string()
    } else {
        requested.clone()
    };
    if raw
        .get("providers")
        .and_then(|p| p.get(provider.as_str()))
        .and_then(|p| p.get("enabled"))
        .is_some_and(|e| e == &Value::Bool(false))
    {
        return Err(EndpointError::Disabled(provider));
    }

    let (api_key, key_source) = api_key(&host, &model_cfg.api_key, raw, env);
    let max_tokens = raw
        .get("model")
        .and_then(|m| m.get("max_tokens"))
        .and_then(Value::as_u64)
        .filter(|n| *n > 0)
        .or((provider == "custom").then_some(65536));
    let reasoning_effort = raw
        .get("agent")
        .and_then(|a| a.get("reasoning_effort"))
        .and_then(|v| match v {
            Value::String(s) => Some(s.trim().to_lowercase()),
            Value::Bool(false) => Some("none".to_string()),
            _ => None,
        })
        .filter(|s| !s.is_empty());
    Ok(Endpoint {
        provider,
        model: model.trim().to_string(),
        base_url,
        api_key,
        key_source,
        max_tokens,
        reasoning_effort,
    })
}

fn api_key(host: &str, configured: &str, raw: &Value, env: &Env) -> (String, String) {
    if let Some(k) = env.get("HERMES_API_KEY") {
        return (k.to_string(), "HERMES_API_KEY".into());
    }
    if !configured.trim().is_empty() {
        return (configured.trim().to_string(), "model.api_key".into());
    }
    if let Some(k) = raw
        .get("model")
        .and_then(|m| m.get("api"))
        .and_then(Value::as_str)
        .filter(|k| !k.trim().is_empty())
    {
        return (k.trim().to_string(), "model.api".into());
    }
    // Ollama's cloud needs no entry: the vendor rule below names OLLAMA_API_KEY for it.
    let by_host: Option<&str> =
        if host.ends_with(".openai.com") || host.ends_with("openai.azure.com") {
            Some("OPENAI_API_KEY")
        } else if host.ends_with("openrouter.ai") {
            Some("OPENROUTER_API_KEY")
        } else {
            None
        };
    if let Some(var) = by_host
        && let Some(k) = env.get(var)
    {
        return (k.to_string(), var.to_string());
    }
    if let Some(var) = vendor_key_variable(host)
        && let Some(k) = env.get(&var)
    {
        return (k.to_string(), var);
    }
    ("no-key-required".into(), "none".into())
}

/// `api.deepseek.com` → `DEEPSEEK_API_KEY`; never for addresses or local names.
fn vendor_key_variable(host: &str) -> Option<String> {
    // A one-label name (empty, `localhost`, an intranet name) has no vendor either.
    if host.parse::<std::net::IpAddr>().is_ok() {
        return None;
    }
    let labels: Vec<&str> = host.split('.').collect();
    if labels.len() < 2 {
        return None;
    }
    let vendor = labels[labels.len() - 2];
    let vendor: String = vendor
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    Some(format!("{vendor}_API_KEY"))
}

pub fn host_of(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let authority = rest.split('/').next().unwrap_or("");
    let authority = authority.rsplit('@').next().unwrap_or(authority);
    let host = if authority.starts_with('[') {
        authority
            .split(']')
            .next()
            .unwrap_or("")
            .trim_start_matches('[')
    } else {
        authority.split(':').next().unwrap_or("")
    };
    host.to_lowercase()
}

/// Whether an endpoint is on this machine or a private network (longer timeouts: a local
/// model may take minutes before its first token).
pub fn is_local(url: &str) -> bool {
    let host = host_of(url);
    host == "localhost"
        || host.parse::<std::net::IpAddr>().is_ok_and(|ip| match ip {
            std::net::IpAddr::V4(v4) => v4.is_loopback() || v4.is_private() || v4.is_link_local(),
            std::net::IpAddr::V6(v6) => v6.is_loopback(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::home::Config;

    #[test]
    fn custom_endpoint_without_a_key_sends_no_key_required() {
        let c = Config::from_yaml(
            "model: {provider: custom, base_url: 'http://127.0.0.1:9/v1/', default: fake-model}\n",
        );
        let env = Env::from_pairs(&[("OPENAI_API_KEY", "sk-envkey-123")]);
        let e = resolve(&c, &Overrides::default(), &env).unwrap();
        assert_eq!(e.base_url, "http://127.0.0.1:9/v1");
        assert_eq!(e.api_key, "no-key-required");
        assert_eq!(e.provider, "custom");
        assert_eq!(e.max_tokens, Some(65536));
    }

    #[test]
    fn a_base_url_without_its_scheme_is_refused_at_once() {
        let c = Config::from_yaml("model: {provider: custom, default: m}\n");
        for (env, flag) in [
            (vec![("HERMES_BASE_URL", "localhost:8080/v1/")], None),
            (vec![], Some("127.0.0.1:9/v1".to_string())),
        ] {
            let overrides = Overrides {
                base_url: flag.clone(),
                ..Overrides::default()
            };
            let e = resolve(&c, &overrides, &Env::from_pairs(&env)).unwrap_err();
            let url = flag.unwrap_or("localhost:8080/v1".into());
            assert_eq!(e, EndpointError::NoScheme(url.clone()));
            assert_eq!(
                e.to_string(),
                format!("the base URL {url:?} has no http:// or https://")
            );
            assert_eq!(
                e.hint(),
                "write it in full, e.g. http://localhost:8080/v1 for a server on this machine"
            );
        }
        let upper = Env::from_pairs(&[("HERMES_BASE_URL", "HTTPS://api.example.com/v1")]);
        assert!(resolve(&c, &Overrides::default(), &upper).is_ok());
    }

    #[test]
    fn our_overrides_win_over_everything() {
        let c = Config::from_yaml(
            "model: {provider: custom, base_url: 'http://dead:1/v1', default: m, api_key: sk-cfg}\n",
        );
        let env = Env::from_pairs(&[
            ("HERMES_BASE_URL", "http://127.0.0.1:5/alt/v1"),
            ("HERMES_API_KEY", "sk-ours"),
            ("CUSTOM_BASE_URL", "http://other/v1"),
        ]);
        let e = resolve(&c, &Overrides::default(), &env).unwrap();
        assert_eq!(e.base_url, "http://127.0.0.1:5/alt/v1");
        assert_eq!(
            (e.api_key.as_str(), e.key_source.as_str()),
            ("sk-ours", "HERMES_API_KEY")
        );
    }

    #[test]
    fn custom_base_url_env_beats_the_config_for_custom() {
        let c = Config::from_yaml(
            "model: {provider: custom, base_url: 'http://dead:1/v1', default: m, api_key: sk-cfgkey-456}\n",
        );
        let env = Env::from_pairs(&[("CUSTOM_BASE_URL", "http://127.0.0.1:7/alt/v1")]);
        let e = resolve(&c, &Overrides::default(), &env).unwrap();
        assert_eq!(e.base_url, "http://127.0.0.1:7/alt/v1");
        assert_eq!(e.api_key, "sk-cfgkey-456");
    }

    #[test]
    fn keys_follow_the_host() {
        let c = Config::from_yaml("model: {base_url: 'https://api.deepseek.com/v1', default: m}\n");
        let env = Env::from_pairs(&[("DEEPSEEK_API_KEY", "sk-ds"), ("OPENAI_API_KEY", "sk-oa")]);
        let e = resolve(&c, &Overrides::default(), &env).unwrap();
        assert_eq!(e.api_key, "sk-ds");
        assert_eq!(vendor_key_variable("127.0.0.1"), None);
    }

    fn resolved(yaml: &str, overrides: &Overrides, env: &[(&str, &str)]) -> Endpoint {
        let Ok(e) = resolve(&Config::from_yaml(yaml), overrides, &Env::from_pairs(env)) else {
            panic!("an endpoint for {yaml}")
        };
        e
    }

    #[test]
    fn the_provider_is_named_as_hermes_names_it() {
        let none = Overrides::default();
        // No URL anywhere under `auto`: OpenRouter, labelled so.
        let e = resolved("model: {default: m}\n", &none, &[]);
        assert_eq!(
            (e.provider.as_str(), e.base_url.as_str(), e.max_tokens),
            ("openrouter", "https://openrouter.ai/api/v1", None)
        );
        // Any other URL under `auto` is a custom endpoint.
        let e = resolved(
            "model: {default: m, base_url: 'http://box:8000/v1/'}\n",
            &none,
            &[],
        );
        assert_eq!(
            (e.provider.as_str(), e.base_url.as_str(), e.max_tokens),
            ("custom", "http://box:8000/v1", Some(65536))
        );
        let e = resolved(
            "model: {default: m}\n",
            &none,
            &[("OPENROUTER_BASE_URL", "https://openrouter.ai/alt/v1")],
        );
        assert_eq!(e.base_url, "https://openrouter.ai/alt/v1");
        assert_eq!(e.provider, "openrouter");
        // The provider from the environment when config.yaml names none; aliases of custom.
        let e = resolved(
            "model: {default: m, base_url: 'http://box/v1'}\n",
            &none,
            &[("HERMES_INFERENCE_PROVIDER", "Ollama")],
        );
        assert_eq!(e.provider, "custom");
        let named = Overrides {
            provider: Some("Anthropic".into()),
            base_url: Some("https://api.anthropic.com/v1".into()),
            model: Some(" claude-x ".into()),
        };
        let e = resolved("model: {default: m}\n", &named, &[]);
        assert_eq!(
            (e.provider.as_str(), e.model.as_str(), e.base_url.as_str()),
            ("anthropic", "claude-x", "https://api.anthropic.com/v1")
        );
        // CUSTOM_BASE_URL only for a custom provider.
        let e = resolved(
            "model: {default: m, provider: anthropic, base_url: 'https://api.anthropic.com/v1'}\n",
            &none,
            &[("CUSTOM_BASE_URL", "http://other/v1")],
        );
        assert_eq!(e.base_url, "https://api.anthropic.com/v1");
        // A blank override model falls back to the configured one.
        let blank = Overrides {
            model: Some("  ".into()),
            ..Overrides::default()
        };
        assert_eq!(resolved("model: {default: m}\n", &blank, &[]).model, "m");
    }

    #[test]
    fn a_disabled_provider_is_refused_with_a_hint() {
        let c = Config::from_yaml(
            "model: {default: m, provider: custom, base_url: 'http://x/v1'}\nproviders: {custom: {enabled: false}}\n",
        );
        let e = resolve(&c, &Overrides::default(), &Env::default());
        assert_eq!(e, Err(EndpointError::Disabled("custom".into())));
        let Err(e) = e else { panic!("refused") };
        assert_eq!(
            e.to_string(),
            "provider 'custom' is disabled in config.yaml (providers.custom.enabled: false)"
        );
        assert_eq!(e.hint(), "enable it, or pass --provider");
        assert_eq!(
            EndpointError::NoModel.hint(),
            "pass --model, or set model.default (and model.base_url, provider: custom) in config.yaml"
        );
        let on = Config::from_yaml(
            "model: {default: m, provider: custom, base_url: 'http://x/v1'}\nproviders: {custom: {enabled: true}}\n",
        );
        assert!(resolve(&on, &Overrides::default(), &Env::default()).is_ok());
    }

    #[test]
    fn the_output_cap_and_the_reasoning_effort_come_from_the_config() {
        for (yaml, max_tokens, effort) in [
            (
                "model: {default: m, base_url: 'https://openrouter.ai/api/v1', max_tokens: 4096}\nagent: {reasoning_effort: ' High '}\n",
                Some(4096),
                Some("high"),
            ),
            // A cap of 0 is no cap: a custom endpoint gets its 65,536; `false` is "none".
            (
                "model: {default: m, provider: custom, base_url: 'http://x/v1', max_tokens: 0}\nagent: {reasoning_effort: false}\n",
                Some(65536),
                Some("none"),
            ),
            (
                "model: {default: m}\nagent: {reasoning_effort: ''}\n",
                None,
                None,
            ),
            (
                "model: {default: m}\nagent: {reasoning_effort: 3}\n",
                None,
                None,
            ),
        ] {
            let e = resolved(yaml, &Overrides::default(), &[]);
            assert_eq!(
                (e.max_tokens, e.reasoning_effort.as_deref()),
                (max_tokens, effort),
                "{yaml}"
            );
        }
    }

    #[test]
    fn the_key_comes_from_the_first_place_that_has_one() {
        let none = Overrides::default();
        let key = |yaml: &str, env: &[(&str, &str)]| {
            let e = resolved(yaml, &none, env);
            (e.api_key, e.key_source)
        };
        let pair = |k: &str, s: &str| (k.to_string(), s.to_string());
        assert_eq!(
            key("model: {default: m, api: ' sk-api '}\n", &[]),
            pair("sk-api", "model.api")
        );
        assert_eq!(
            key("model: {default: m, api_key: ' sk-k ', api: sk-api}\n", &[]),
            pair("sk-k", "model.api_key")
        );
        assert_eq!(
            key("model: {default: m}\n", &[("OPENROUTER_API_KEY", "sk-or")]),
            pair("sk-or", "OPENROUTER_API_KEY")
        );
        for (url, var) in [
            ("https://ollama.com/v1", "OLLAMA_API_KEY"),
            ("https://eu.ollama.com/v1", "OLLAMA_API_KEY"),
            ("https://api.openai.com/v1", "OPENAI_API_KEY"),
            ("https://x.openai.azure.com/v1", "OPENAI_API_KEY"),
            ("https://api.my-vendor.io/v1", "MY_VENDOR_API_KEY"),
        ] {
            let yaml = format!("model: {{default: m, base_url: '{url}'}}\n");
            assert_eq!(key(&yaml, &[(var, "sk-v")]), pair("sk-v", var), "{url}");
        }
        // A blank variable is no key.
        assert_eq!(
            key(
                "model: {default: m, base_url: 'https://api.openai.com/v1'}\n",
                &[("OPENAI_API_KEY", "  ")]
            ),
            pair("no-key-required", "none")
        );
        for host in ["", "localhost", "::1", "10.0.0.2", "intranet"] {
            assert_eq!(vendor_key_variable(host), None, "{host:?}");
        }
        assert_eq!(
            vendor_key_variable("example.io").as_deref(),
            Some("EXAMPLE_API_KEY")
        );
        assert_eq!(
            vendor_key_variable("a.b.c.example.io").as_deref(),
            Some("EXAMPLE_API_KEY")
        );
    }

    #[test]
    fn hosts_are_read_from_any_url_shape() {
        assert_eq!(
            host_of("https://User:pw@API.Example.com:8443/v1"),
            "api.example.com"
        );
        assert_eq!(host_of("http://[::1]:8080/v1"), "::1");
        assert_eq!(host_of("example.org/v1"), "example.org");
        assert_eq!(host_of(""), "");
        for local in [
            "http://localhost:11434/v1",
            "http://127.0.0.1/v1",
            "http://10.1.2.3/v1",
            "http://192.168.1.9/v1",
            "http://169.254.0.1/v1",
            "http://[::1]:8000/v1",
        ] {
            assert!(is_local(local), "{local}");
        }
        for remote in [
            "https://api.openai.com/v1",
            "http://8.8.8.8/v1",
            "http://[2001:db8::1]/v1",
        ] {
            assert!(!is_local(remote), "{remote}");
        }
    }

    #[test]
    fn the_environment_wins_over_the_env_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join(".env");
        let _ = std::fs::write(
            &p,
            "HERMES_LOOP_TEST_ONLY_IN_FILE='single quoted'\nPATH=/nowhere\nno equals sign\n",
        );
        let env = Env::load(&p);
        assert_eq!(
            env.get("HERMES_LOOP_TEST_ONLY_IN_FILE"),
            Some("single quoted")
        );
        assert_ne!(env.get("PATH"), Some("/nowhere"));
        assert_eq!(env.get("no equals sign"), None);
        assert!(read_dotenv(&dir.path().join("missing")).is_empty());
        let blank = Env::from_pairs(&[("A", "  "), ("B", " b ")]);
        assert_eq!((blank.get("A"), blank.get("B")), (None, Some("b")));
    }

    #[test]
    fn no_model_is_an_error_with_a_hint() {
        let c = Config::from_yaml("");
        assert_eq!(
            resolve(&c, &Overrides::default(), &Env::default()),
            Err(EndpointError::NoModel)
        );
    }

    #[test]
    fn the_key_is_never_in_debug_output() {
        let c = Config::from_yaml(
            "model: {provider: custom, base_url: 'http://x/v1', default: m, api_key: sk-secret-999}\n",
        );
        let e = resolve(&c, &Overrides::default(), &Env::default()).unwrap();
        assert_eq!(
            format!("{e:?}"),
            r#"Endpoint { provider: "custom", model: "m", base_url: "http://x/v1", key_source: "model.api_key", .. }"#
        );
    }

    #[test]
    fn dotenv_lines_are_read_as_shells_write_them() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(".env");
        std::fs::write(
            &p,
            "# c\nexport A=1\nB=\"two words\"\nC=3 # note\nD=\"half\nE='x\nF=\"\nG='y'\n",
        )
        .unwrap();
        let vars = read_dotenv(&p);
        assert_eq!(vars["A"], "1");
        assert_eq!(vars["B"], "two words");
        assert_eq!(vars["C"], "3");
        // Unbalanced quotes are kept as written.
        assert_eq!(
            [&vars["D"], &vars["E"], &vars["F"], &vars["G"]],
            ["\"half", "'x", "\"", "y"]
        );
    }
}
